import Foundation
import TestSupport
import Testing

/// Each command with one bad input of each kind: the documented exit status, and stderr one sentence
/// that names what is wrong and where.
@Suite struct BadInputTests {
    enum Setup: Sendable {
        case none, fixtureStore, foreignKey, openKeyFile, format0Store, shortKey, keyIsADirectory, storeIsAFile, storeNotLMDB
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var label: String
        var setup: Setup
        var arguments: [String]
        var status: Int32
        /// What the last line of stderr must say.
        var says: [String]
        var testDescription: String { label }
    }

    static let session = OutputFixture.session
    static let script = RepositoryFixtures.audioPath("short-dictation", "json")
    static let audio = RepositoryFixtures.audioPath("short-dictation")

    static let cases: [Case] = [
        Case(label: "no store", setup: .none, arguments: ["sessions"], status: 65,
             says: ["there is no store at sessions.store: nothing is there", "run `sessionstore init` first"]),
        Case(label: "a store of an older format", setup: .format0Store, arguments: ["sessions"], status: 65,
             says: ["older than this build's", "run `sessionstore migrate`"]),
        Case(label: "the wrong key", setup: .foreignKey, arguments: ["stats"], status: 77, says: ["key"]),
        Case(label: "a key file others can read", setup: .openKeyFile, arguments: ["stats"], status: 77,
             says: ["sessions.key"]),
        Case(label: "a key file of the wrong size", setup: .shortKey, arguments: ["stats"], status: 77,
             says: ["key file sessions.key holds 16 bytes; a key file holds exactly 32"]),
        Case(label: "a key file that is a directory", setup: .keyIsADirectory, arguments: ["stats"], status: 77,
             says: ["key file sessions.key is not a regular file"]),
        Case(label: "a store path that is a file", setup: .storeIsAFile, arguments: ["stats"], status: 65,
             says: ["there is no store at sessions.store"]),
        Case(label: "a store file that is not LMDB", setup: .storeNotLMDB, arguments: ["verify"], status: 2,
             says: ["the store at sessions.store cannot be opened: its data.mdb is not an LMDB file", "a damaged store"]),
        Case(label: "a session id that is no UUID", setup: .fixtureStore, arguments: ["transcript", "not-a-session"],
             status: 64, says: ["not-a-session is not a session id"]),
        Case(label: "a session the store lacks", setup: .fixtureStore,
             arguments: ["events", "00000000-0000-4000-8000-000000000000"], status: 65,
             says: ["the store has no session 00000000-0000-4000-8000-000000000000"]),
        Case(label: "an output file that cannot be created", setup: .fixtureStore,
             arguments: ["sessions", "--out", "/nonexistent-dir/s.csv"], status: 64,
             says: ["cannot create /nonexistent-dir/s.csv"]),
        Case(label: "a replay speed that is no speed", setup: .fixtureStore, arguments: ["replay", session, "--speed", "fast"],
             status: 64, says: ["--speed fast is not max, realtime or a positive factor"]),
        Case(label: "an ingest file that does not exist", setup: .fixtureStore, arguments: ["ingest", "missing.ndjson"],
             status: 65, says: ["cannot read missing.ndjson: No such file or directory"]),
        Case(label: "a script that does not exist", setup: .fixtureStore,
             arguments: ["record", "--audio", audio, "--script", "missing.json"], status: 65,
             says: ["missing.json cannot be read: No such file or directory"]),
        Case(label: "an ingest line with a bad field", setup: .fixtureStore, arguments: ["ingest", "bad.ndjson"],
             status: 65, says: ["bad.ndjson has 2 problems; nothing was appended"]),
        Case(label: "audio that is missing", setup: .fixtureStore, arguments: ["record", "--audio", "missing.flac", "--script", script],
             status: 65, says: ["missing.flac cannot be read as audio"]),
        Case(label: "a script whose times are out of order", setup: .fixtureStore,
             arguments: ["record", "--audio", audio, "--script", "bad-script.json"], status: 65,
             says: ["bad-script.json: segments[0].end_ms (100) is not after start_ms (500)"]),
        Case(label: "an audio file name of no known container", setup: .fixtureStore,
             arguments: ["audio", session, "--out", "recording.mp3"], status: 64, says: ["recording.mp3", ".wav or .flac"]),
        Case(label: "an audio file that cannot be created", setup: .fixtureStore,
             arguments: ["audio", session, "--out", "/nonexistent-dir/r.wav"], status: 64,
             says: ["cannot create /nonexistent-dir/r.wav"]),
    ]

    @Test(.timeLimit(.minutes(10)), arguments: cases)
    func eachBadInputExitsWithItsStatusAndOneSentence(_ test: Case) async throws {
        try await withCLI { cli in
            try prepare(test.setup, in: cli)
            try Data(#"{"type":"session.started","session":"nope","at":"2026-01-01T00:00:00Z","locale":"en"}"#.utf8)
                .write(to: cli.directory.appendingPathComponent("bad.ndjson"))
            try Data(#"{"segments":[{"text":"hello","start_ms":500,"end_ms":100}]}"#.utf8)
                .write(to: cli.directory.appendingPathComponent("bad-script.json"))
            let outcome = try cli.run(test.arguments)
            #expect(outcome.status == test.status, "\(outcome.stderr)")
            let lines = outcome.stderr.split(separator: "\n")
            let last = try #require(lines.last.map(String.init))
            #expect(last.hasPrefix("sessionstore: error: "))
            #expect(!last.dropFirst(21).dropLast().contains(". "), "one sentence: \(last)")
            for fragment in test.says { #expect(last.contains(fragment), "\(last)") }
            #expect(outcome.stdout.isEmpty)
        }
    }

    private func prepare(_ setup: Setup, in cli: CLIRunner) throws {
        switch setup {
        case .none:
            break
        case .fixtureStore:
            try OutputFixture.copy(into: cli)
        case .foreignKey:
            try OutputFixture.copy(into: cli)
            try FileManager.default.removeItem(atPath: cli.keyPath)
            try Data((0..<32).map { UInt8($0) }).write(to: URL(fileURLWithPath: cli.keyPath))
            chmod(cli.keyPath, 0o600)
        case .openKeyFile:
            try OutputFixture.copy(into: cli)
            chmod(cli.keyPath, 0o644)
        case .shortKey:
            try OutputFixture.copy(into: cli)
            try FileManager.default.removeItem(atPath: cli.keyPath)
            try Data(repeating: 7, count: 16).write(to: URL(fileURLWithPath: cli.keyPath))
            chmod(cli.keyPath, 0o600)
        case .keyIsADirectory:
            try OutputFixture.copy(into: cli)
            try FileManager.default.removeItem(atPath: cli.keyPath)
            try FileManager.default.createDirectory(atPath: cli.keyPath, withIntermediateDirectories: false)
        case .storeIsAFile:
            try OutputFixture.copy(into: cli)
            try FileManager.default.removeItem(atPath: cli.storePath)
            try Data("not a store".utf8).write(to: URL(fileURLWithPath: cli.storePath))
        case .storeNotLMDB:
            try OutputFixture.copy(into: cli)
            try Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }).write(to: URL(fileURLWithPath: cli.storePath + "/data.mdb"))
        case .format0Store:
            let stores = RepositoryFixtures.root.appendingPathComponent("stores")
            try FileManager.default.createDirectory(atPath: cli.storePath, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: stores.appendingPathComponent("format0/data.mdb"),
                                             to: URL(fileURLWithPath: cli.storePath + "/data.mdb"))
            try FileManager.default.copyItem(at: stores.appendingPathComponent("format0.key"),
                                             to: URL(fileURLWithPath: cli.keyPath))
            chmod(cli.keyPath, 0o600)
        }
    }

    /// A store directory this user may not enter: exit 77 and the reason, not "there is no store". Root
    /// may open anything, so as root the command runs as `nobody` (which owns the key file here).
    @Test func aStoreThisUserMayNotOpenIsRefusedWithExit77() async throws {
        try await withCLI { cli in
            try OutputFixture.copy(into: cli)
            chmod(cli.storePath, 0o700)
            defer { chmod(cli.storePath, 0o755) }
            let arguments = ["stats", "--store", cli.storePath, "--key-file", cli.keyPath]
            let outcome: ChildProcess.Outcome
            if getuid() == 0 {
                chmod(cli.directory.path, 0o755)
                let nobody = try #require(getpwnam("nobody")).pointee.pw_uid
                chown(cli.keyPath, nobody, 0)
                outcome = try ChildProcess(URL(fileURLWithPath: "/usr/sbin/runuser"),
                                           ["-u", "nobody", "--", CLIRunner.binary().path] + arguments, directory: cli.directory).wait(limit: .seconds(60))
            } else {
                chmod(cli.storePath, 0o000)
                outcome = try ChildProcess(CLIRunner.binary(), arguments, directory: cli.directory).wait(limit: .seconds(60))
            }
            #expect(outcome.status == 77, "\(outcome.stderr)")
            #expect(outcome.stderr.contains("cannot open the store at \(cli.storePath): this user may not read data.mdb there (permission denied)"),
                    "\(outcome.stderr)")
        }
    }
}
