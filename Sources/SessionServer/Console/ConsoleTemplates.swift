import Mustache

/// The console's pages as Mustache templates (swift-mustache), one file each in `Console/Resources`,
/// compiled into the binary (SwiftPM's `embedInCode`): `sessionstore` is one file to copy, with no
/// resource folder beside it to lose. Every page fills the blocks of
/// `layout`; `{{x}}` escapes for HTML, and `{{{x}}}` is used only for markup the server drew itself
/// (the timeline, the transcript).
enum ConsoleTemplates {
    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, text) in templates {
            do {
                try library.register(text, named: name)
            } catch {
                preconditionFailure("the console template \(name) does not parse: \(error)")
            }
        }
        return library
    }()

    static let templates: [String: String] = [
        "layout": resource(PackageResources.layout_mustache), "login": resource(PackageResources.login_mustache),
        "sessions": resource(PackageResources.sessions_mustache), "session": resource(PackageResources.session_mustache),
        "subject": resource(PackageResources.subject_mustache), "erase": resource(PackageResources.erase_mustache),
        "integrity": resource(PackageResources.integrity_mustache), "live": resource(PackageResources.live_mustache),
        "message": resource(PackageResources.message_mustache), "runs": resource(PackageResources.runs_mustache),
    ]

    /// A file of `Console/Resources` as text, without the line end that closes the file.
    static func resource(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.last == UInt8(ascii: "\n") ? bytes.dropLast() : bytes[...], as: UTF8.self)
    }
}
