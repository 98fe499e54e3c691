import Foundation

/// A fixture pack's `manifest.json` (`sessionstore pack`, docs/APP-TESTING.md): its sessions and every file with its
/// SHA-256, so that a test target can tell a pack bundled whole from one that is not.
public struct FixturePackManifest: Codable, Sendable, Equatable {
    public static let schemaVersion = 1

    /// One session's two files.
    public struct Session: Codable, Sendable, Equatable {
        public var session: UUID
        public var recording: String
        public var expectation: String

        public init(session: UUID, recording: String, expectation: String) {
            self.session = session
            self.recording = recording
            self.expectation = expectation
        }

        /// The id in lower case, as everywhere in the store.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(session.uuidString.lowercased(), forKey: .session)
            try container.encode(recording, forKey: .recording)
            try container.encode(expectation, forKey: .expectation)
        }

        enum CodingKeys: String, CodingKey {
            case session, recording, expectation
        }
    }

    /// A file of the pack, its bytes and their SHA-256 in lowercase hex.
    public struct File: Codable, Sendable, Equatable {
        public var path: String
        public var bytes: Int
        public var sha256: String

        public init(path: String, bytes: Int, sha256: String) {
            self.path = path
            self.bytes = bytes
            self.sha256 = sha256
        }
    }

    public var schemaVersion: Int
    /// What wrote it: "sessionstore VERSION".
    public var generator: String
    /// In the order of their ids.
    public var sessions: [Session]
    public var files: [File]

    enum CodingKeys: String, CodingKey {
        case generator, sessions, files
        case schemaVersion = "schema_version"
    }

    public init(generator: String, sessions: [Session], files: [File]) {
        schemaVersion = Self.schemaVersion
        self.generator = generator
        self.sessions = sessions
        self.files = files
    }

    /// The manifest of the pack in `directory`.
    public static func load(from directory: URL) throws -> FixturePackManifest {
        try JSONDecoder().decode(FixturePackManifest.self, from: Data(contentsOf: directory.appendingPathComponent("manifest.json")))
    }

    /// The file's bytes, as ``FixtureExpectation/encoded()`` makes them.
    public func encoded() throws -> Data {
        try PackJSON.encoded(self)
    }
}
