import Foundation
import TestSupport

/// Fixtures/stores/format0: a store written in format 0 with payloads of older schemas, committed so
/// that every build is tested against the old shape. Tests work on a copy, never on the fixture.
enum FixtureStore {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/stores")
    static let format0 = root.appendingPathComponent("format0")
    /// The fixture's key: a test key, committed with the fixture and useless for anything else.
    static let format0Key = root.appendingPathComponent("format0.key")
    static let session = UUID(uuidString: "5e55e55e-0000-4000-8000-000000000001")!

    /// A copy of the format-0 fixture in `store`'s directory; returns the store path and key source.
    static func copyFormat0(into store: TemporaryStore) throws -> (path: String, keyPath: String) {
        let path = store.root.appendingPathComponent("format0").path
        let keyPath = store.root.appendingPathComponent("format0.key").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: format0.appendingPathComponent("data.mdb"),
                                         to: URL(fileURLWithPath: path + "/data.mdb"))
        try FileManager.default.copyItem(at: format0Key, to: URL(fileURLWithPath: keyPath))
        chmod(keyPath, 0o600)  // git keeps no file modes but the executable bit
        return (path, keyPath)
    }
}
