import Foundation

/// The committed fixtures under `Fixtures/` at the repository's root.
public enum RepositoryFixtures {
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")
    /// Speech made with flite (tools/fixtures/make.py): NAME.flac with its timed script NAME.json.
    public static let audio = root.appendingPathComponent("audio")
    public static let speechFixtures = ["short-dictation", "long-pauses", "two-speakers", "dialog-interruptions",
                                        "paused-resumed", "multilingual"]

    public static func audioPath(_ name: String, _ ext: String = "flac") -> String {
        audio.appendingPathComponent("\(name).\(ext)").path
    }

    /// Every Swift file under `Sources/` (or `Sources/FOLDER`), for the tests that read the code's shape.
    public static func swiftSources(under folder: String? = nil) -> [URL] {
        var directory = root.deletingLastPathComponent().appendingPathComponent("Sources")
        if let folder { directory = directory.appendingPathComponent(folder) }
        return (FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? [])
            .filter { $0.pathExtension == "swift" }
    }
}
