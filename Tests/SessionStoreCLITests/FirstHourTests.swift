import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a newcomer meets in the first hour: the README's commands as written, short session ids, one
/// sentence for a path that is not a store.
@Suite struct FirstHourTests {
    static let s = OutputFixture.session

    @Test(.timeLimit(.minutes(10)))
    func versionIsPrintedAndMatchesStats() async throws {
        try await withCLI { cli in
            try OutputFixture.copy(into: cli)
            let version = try cli.run(["--version"])
            #expect(version.status == 0)
            let printed = version.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(printed.split(separator: ".").count == 3, "\(printed) is not MAJOR.MINOR.PATCH")
            let stats = try cli.run(["stats", "--format", "json"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
            #expect(object["version"] as? String == printed)
            let export = try cli.run(["export", Self.s])
            let document = try #require(try JSONSerialization.jsonObject(with: Data(export.stdout.utf8)) as? [String: Any])
            #expect(document["generator"] as? String == "sessionstore \(printed)")
        }
    }

    @Test(.timeLimit(.minutes(10)), arguments: [["transcript"], ["events"], ["replay", "--quiet", "--digest"],
                                                 ["audit", "consent", "--session"], ["prove"]])
    func everyCommandThatTakesASessionTakesAUniquePrefix(_ command: [String]) async throws {
        try await withCLI { cli in
            try OutputFixture.copy(into: cli)
            var arguments = command + [String(Self.s.prefix(8))]
            if command == ["prove"] {
                let anchor = try cli.run(["anchor", "--out", "cp.txt"])
                #expect(anchor.status == 0, "\(anchor.stderr)")
                arguments += ["--anchor", "cp.txt"]
            }
            let short = try cli.run(arguments)
            #expect(short.status == 0, "\(short.stderr)")
            let full = try cli.run(arguments.map { $0 == String(Self.s.prefix(8)) ? Self.s : $0 })
            #expect(short.stdout == full.stdout)
            let tooShort = try cli.run(command + ["0f1e2d"])
            #expect(tooShort.status == 64)
            #expect(tooShort.stderr.contains("at least 8 characters"))
            let unknown = try cli.run(command + ["deadbeef"])
            #expect(unknown.status == 65)
            #expect(unknown.stderr.contains("no session whose id begins deadbeef"))
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func anAmbiguousPrefixIsRefusedNamingTheCandidates() async throws {
        try await withCLI { cli in
            let ids = ["abcdef12-0000-4000-8000-000000000001", "abcdef12-0000-4000-8000-000000000002"]
            let lines = ids.map {
                #"{"type":"session.started","session":"\#($0)","at":"2026-11-21T10:00:00.000Z","subject":"u","locale":"en-GB","device":"d"}"#
            }
            try lines.joined(separator: "\n").write(to: cli.directory.appendingPathComponent("two.ndjson"), atomically: true, encoding: .utf8)
            #expect(try cli.run(["init"]).status == 0)
            #expect(try cli.run(["ingest", "two.ndjson"]).status == 0)
            let outcome = try cli.run(["transcript", "abcdef12"])
            #expect(outcome.status == 64)
            #expect(outcome.stderr.contains("ambiguous") && ids.allSatisfy(outcome.stderr.contains))
            #expect(try cli.run(["events", "abcdef12-0000-4000-8000-000000000002"]).status == 0)
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func keysRotateMakesTheNewKeyFileAndCompactTakesTheKeyOptions() async throws {
        try await withCLI { cli in
            try OutputFixture.copy(into: cli)
            let rotated = try cli.run(["keys", "rotate", "--new-key-file", "new.key"])
            #expect(rotated.status == 0, "\(rotated.stderr)")
            var status = stat()
            #expect(stat(cli.directory.appendingPathComponent("new.key").path, &status) == 0)
            #expect(status.st_mode & 0o777 == 0o600)
            #expect(status.st_size == 32)
            #expect(try cli.run(["stats"]).status == 77, "the old key is refused")
            #expect(try cli.run(["stats", "--key-file", "new.key"]).status == 0)
            let short = cli.directory.appendingPathComponent("short.key")
            try Data(repeating: 1, count: 10).write(to: short)
            chmod(short.path, 0o600)
            let again = try cli.run(["keys", "rotate", "--key-file", "new.key", "--new-key-file", "short.key"])
            #expect(again.status == 77, "an existing key file of another size is refused: \(again.stderr)")
            #expect(try Data(contentsOf: short) == Data(repeating: 1, count: 10), "and never overwritten")
            #expect(try cli.run(["compact", "--key-file", "new.key"]).status == 0)
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func exportIntoAPathEndingInASlashCreatesTheDirectory() async throws {
        try await withCLI { cli in
            try OutputFixture.copy(into: cli)
            let outcome = try cli.run(["export", "--all", "--format", "vtt", "--out", "subtitles/nested/"])
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let files = try FileManager.default.contentsOfDirectory(atPath: cli.directory.appendingPathComponent("subtitles/nested").path)
            #expect(files.contains("\(Self.s).vtt"))
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func aPathThatIsNotAStoreIsNamedForWhatItIs() async throws {
        try await withCLI { cli in
            try OutputFixture.copy(into: cli)
            _ = FileManager.default.createFile(atPath: cli.directory.appendingPathComponent("afile").path, contents: Data("x".utf8))
            let file = try cli.run(["sessions", "--store", "afile"])
            #expect(file.status == 65)
            #expect(file.stderr.contains("it is a regular file, not a store directory"))
            let initFile = try cli.run(["init", "--store", "afile", "--key-file", "other.key"])
            #expect(initFile.stderr.contains("is a file, not a directory"))
            try FileManager.default.createDirectory(at: cli.directory.appendingPathComponent("empty"), withIntermediateDirectories: true)
            #expect(try cli.run(["sessions", "--store", "empty"]).stderr.contains("it is an empty directory"))
            try FileManager.default.createDirectory(at: cli.directory.appendingPathComponent("foreign"), withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: cli.directory.appendingPathComponent("foreign/data.mdb").path,
                                           contents: Data(repeating: 7, count: 8192))
            let foreign = try cli.run(["sessions", "--store", "foreign"])
            #expect(foreign.stderr.contains("is not an LMDB file"))
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func replayPrintsInTheFormatAskedForAndEachCommandOffersOnlyWhatItAccepts() async throws {
        try await withCLI { cli in
            try OutputFixture.copy(into: cli)
            let json = try cli.run(["replay", Self.s, "--format", "json"])
            #expect(json.status == 0)
            let steps = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
            #expect(steps.first?["type"] as? String == "session.started")
            let help = try cli.run(["help", "sessions"])
            #expect(help.stdout.contains("table (default), json, ndjson or csv"))
            #expect(!help.stdout.contains("table (default), text"))
            let stats = try cli.run(["help", "stats"]).stdout
            #expect(stats.contains("Output format: table (default) or json."))
            #expect(!stats.contains("ndjson"), "stats offers table and json only: \(stats)")
            #expect(try cli.run(["sessions", "--format", "text"]).status == 64)
        }
    }
}
