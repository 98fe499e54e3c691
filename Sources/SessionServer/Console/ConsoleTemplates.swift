import Mustache
import Output

/// The console's pages as Mustache templates (swift-mustache), one file each in `Console/Resources`,
/// compiled into the binary (SwiftPM's `embedInCode`): `sessionstore` is one file to copy, with no
/// resource folder beside it to lose. Every page fills the blocks of `layout`; `{{x}}` escapes for HTML,
/// and `{{{x}}}` is used only for markup the server drew itself (the timeline, the transcript).
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
        "layout": embeddedText(PackageResources.layout_mustache), "login": embeddedText(PackageResources.login_mustache),
        "sessions": embeddedText(PackageResources.sessions_mustache), "session": embeddedText(PackageResources.session_mustache),
        "subject": embeddedText(PackageResources.subject_mustache), "erase": embeddedText(PackageResources.erase_mustache),
        "integrity": embeddedText(PackageResources.integrity_mustache), "live": embeddedText(PackageResources.live_mustache),
        "message": embeddedText(PackageResources.message_mustache), "runs": embeddedText(PackageResources.runs_mustache),
    ]
}
