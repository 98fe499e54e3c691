import Foundation
import TestSupport

/// Fixtures/outputs: a small store made from `session.ndjson` (hostile text: quotes, commas, line ends,
/// tabs, right-to-left scripts, emoji, a leading `=`), committed with its key so that its recorded
/// times and hashes never change, and the golden output of every command in every format.
enum OutputFixture {
    static let root = RepositoryFixtures.root.appendingPathComponent("outputs")
    static let store = root.appendingPathComponent("store")
    /// A test key, committed with the fixture and useless for anything else.
    static let key = root.appendingPathComponent("store.key")
    static let golden = root.appendingPathComponent("golden")
    static let session = "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0"
    static let subject = "dr-okafor"

    /// Copies the fixture store into the runner's directory as its default store and key.
    static func copy(into cli: CLIRunner) throws {
        try FileManager.default.createDirectory(atPath: cli.storePath, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: store.appendingPathComponent("data.mdb"),
                                         to: URL(fileURLWithPath: cli.storePath + "/data.mdb"))
        try FileManager.default.copyItem(at: key, to: URL(fileURLWithPath: cli.keyPath))
        chmod(cli.keyPath, 0o600)  // git keeps no file modes but the executable bit
    }
}
