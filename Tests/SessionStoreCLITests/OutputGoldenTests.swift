import Foundation
import TestSupport
import Testing

/// Every command that prints data, in every format it offers, on the committed fixture store, compared
/// byte for byte with Fixtures/outputs/golden; each output is also read back by a real parser.
/// After an intended change: UPDATE_GOLDEN=1 swift test --filter OutputGoldenTests, then review the diff.
@Suite struct OutputGoldenTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var arguments: [String]
        /// The command writes its output to this file (under the run's directory) instead of stdout.
        var file: String?
        var exitStatus: Int32 = 0

        var format: String { String(name.split(separator: ".").last!) }
        var testDescription: String { name }
    }

    static let s = OutputFixture.session
    static let cases: [Case] = [
        Case(name: "sessions.table", arguments: ["sessions"]),
        Case(name: "sessions.json", arguments: ["sessions", "--format", "json"]),
        Case(name: "sessions.ndjson", arguments: ["sessions", "--format", "ndjson"]),
        Case(name: "sessions.csv", arguments: ["sessions", "--format", "csv"]),
        Case(name: "transcript.text", arguments: ["transcript", s]),
        Case(name: "transcript-partials.text", arguments: ["transcript", s, "--partials"]),
        Case(name: "transcript.json", arguments: ["transcript", s, "--format", "json"]),
        Case(name: "transcript-partials.json", arguments: ["transcript", s, "--format", "json", "--partials"]),
        Case(name: "transcript-partials.ndjson", arguments: ["transcript", s, "--format", "ndjson", "--partials"]),
        Case(name: "transcript-partials.csv", arguments: ["transcript", s, "--format", "csv", "--partials"]),
        Case(name: "events.ndjson", arguments: ["events", s]),
        Case(name: "events.json", arguments: ["events", s, "--format", "json"]),
        Case(name: "events.csv", arguments: ["events", s, "--format", "csv"]),
        Case(name: "events-with-audio.ndjson", arguments: ["events", s, "--with-audio"]),
        Case(name: "consent.table", arguments: ["consent", OutputFixture.subject]),
        Case(name: "consent.json", arguments: ["consent", OutputFixture.subject, "--format", "json"]),
        Case(name: "consent.ndjson", arguments: ["consent", OutputFixture.subject, "--format", "ndjson"]),
        Case(name: "consent.csv", arguments: ["consent", OutputFixture.subject, "--format", "csv"]),
        Case(name: "stats.table", arguments: ["stats"]),
        Case(name: "stats.json", arguments: ["stats", "--format", "json"]),
        Case(name: "verify.text", arguments: ["verify"]),
        Case(name: "verify.json", arguments: ["verify", "--format", "json"]),
        Case(name: "verify.ndjson", arguments: ["verify", "--format", "ndjson"]),
        Case(name: "verify.csv", arguments: ["verify", "--format", "csv"]),
        Case(name: "replay-trace.ndjson", arguments: ["replay", s, "--quiet", "--trace", "trace"], file: "trace"),
        Case(name: "replay-trace.json", arguments: ["replay", s, "--quiet", "--trace", "trace", "--format", "json"],
             file: "trace"),
        Case(name: "replay-trace.csv", arguments: ["replay", s, "--quiet", "--trace", "trace", "--format", "csv"],
             file: "trace"),
        Case(name: "replay.text", arguments: ["replay", s, "--digest"]),
        Case(name: "replay.ndjson", arguments: ["replay", s, "--format", "ndjson"]),
        Case(name: "replay.csv", arguments: ["replay", s, "--format", "csv"]),
        Case(name: "sessions-out.csv", arguments: ["sessions", "--format", "csv", "--out", "list.csv"], file: "list.csv"),
        Case(name: "report.html", arguments: ["report", s, "--no-audio", "--as-of", "2026-03-03T00:00:00Z", "--out", "report.html"],
             file: "report.html"),
    ]

    static let updating = ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] != nil

    @Test(.timeLimit(.minutes(10)), arguments: cases)
    func everyCommandPrintsItsGoldenOutput(_ test: Case) async throws {
        try await withCLI { cli in
            try OutputFixture.copy(into: cli)
            // In-process (its output files named by absolute paths): every case parses and runs as the binary would.
            let arguments = test.arguments.map { $0 == test.file ? cli.directory.appendingPathComponent($0).path : $0 }
            let outcome = try await cli.runInProcess(arguments)
            #expect(outcome.status == test.exitStatus, "\(outcome.stderr)")
            let output: Data
            if let file = test.file {
                #expect(outcome.stdout.isEmpty)
                output = try Data(contentsOf: cli.directory.appendingPathComponent(file))
            } else {
                output = Data(outcome.stdout.utf8)
            }
            let golden = OutputFixture.golden.appendingPathComponent(test.name)
            if Self.updating { try output.write(to: golden) }
            let expected = try Data(contentsOf: golden)
            #expect(output == expected, "\(test.name) differs from its golden file:\n\(String(decoding: output, as: UTF8.self))")
            try Self.parse(output, as: test.format, name: test.name)
        }
    }

    /// Reads the output back with Foundation's JSON parser or Python's csv module.
    static func parse(_ output: Data, as format: String, name: String) throws {
        switch format {
        case "json":
            _ = try JSONSerialization.jsonObject(with: output)
        case "ndjson":
            for line in output.split(separator: UInt8(ascii: "\n")) {
                #expect(try JSONSerialization.jsonObject(with: Data(line)) is [String: Any], "\(name): \(line)")
            }
        case "html":
            let page = try ReportReader.read(output)
            #expect((page["external"] as? [String])?.isEmpty == true, "\(name) refers to something outside the page")
            #expect((page["duplicate_ids"] as? [String])?.isEmpty == true, "\(name) repeats an id")
        case "csv":
            let rows = try PythonCSV.read(output)
            let header = try #require(rows.first, "\(name) has no header")
            for row in rows { #expect(row.count == header.count, "\(name): a row of \(row.count) fields under \(header.count)") }
        default:
            break
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func csvAndNDJSONCarryTheSameRowsAndKeepHostileTextExactly() async throws {
        try await withCLI { cli in
            try OutputFixture.copy(into: cli)
            let ndjson = try cli.run(["transcript", Self.s, "--format", "ndjson", "--partials"]).stdout
            let objects = try ndjson.split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            let csv = try PythonCSV.read(Data(try cli.run(["transcript", Self.s, "--format", "csv", "--partials"]).stdout.utf8))
            let header = try #require(csv.first)
            #expect(csv.count - 1 == objects.count)
            let textColumn = try #require(header.firstIndex(of: "text"))
            for (row, object) in zip(csv.dropFirst(), objects) {
                #expect(row[textColumn] == object["text"] as? String)
            }
            #expect(objects.first?["text"] as? String == "Patient says, \"it hurts\" — here,\nand there.")
            #expect(objects.contains { $0["text"] as? String == "שלום 👋 مرحبا" })
            #expect(objects.last?["confidence"] is NSNull, "absent values are null")
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func anOutputFileIsLeftUntouchedWhenTheCommandFails() async throws {
        try await withCLI { cli in
            try OutputFixture.copy(into: cli)
            let out = cli.directory.appendingPathComponent("events.ndjson")
            try Data("earlier\n".utf8).write(to: out)
            let failed = try await cli.runInProcess(["events", "00000000-0000-4000-8000-000000000000", "--out", out.path])
            #expect(failed.status == 65)
            #expect(try String(contentsOf: out, encoding: .utf8) == "earlier\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: cli.directory.path).filter { $0.contains(".partial-") }.isEmpty)
            let unwritable = try await cli.runInProcess(["sessions", "--out", "/nonexistent-dir/list.txt"])
            #expect(unwritable.status == 64)
            #expect(unwritable.stderr == "sessionstore: error: cannot create /nonexistent-dir/list.txt: No such file or directory\n")
        }
    }

    @Test func aFormatACommandDoesNotOfferIsAUsageError() async throws {
        try await withCLI { cli in
            for refused in [try cli.run(["stats", "--format", "csv"]), try await cli.runInProcess(["stats", "--format", "csv"])] {
                #expect(refused.status == 64)
                #expect(refused.stderr.contains("--format csv is not offered here. Output format: table (default) or json."), "\(refused.stderr)")
            }
        }
    }
}

/// Opt-in: writes Fixtures/outputs/store anew from Fixtures/outputs/session.ndjson. Every golden file
/// changes with it (new recorded times and hashes): REGENERATE_FIXTURES=1 UPDATE_GOLDEN=1 swift test …
@Suite struct OutputFixtureGenerator {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["REGENERATE_FIXTURES"] != nil))
    func regenerateTheOutputsStore() async throws {
        try await withCLI { cli in
            try cli.run(["init"])
            let ingest = try cli.run(["ingest", OutputFixture.root.appendingPathComponent("session.ndjson").path])
            #expect(ingest.status == 0, "\(ingest.stderr)")
            try? FileManager.default.removeItem(at: OutputFixture.store)
            try? FileManager.default.removeItem(at: OutputFixture.key)
            try FileManager.default.createDirectory(at: OutputFixture.store, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: URL(fileURLWithPath: cli.storePath + "/data.mdb"),
                                             to: OutputFixture.store.appendingPathComponent("data.mdb"))
            try FileManager.default.copyItem(at: URL(fileURLWithPath: cli.keyPath), to: OutputFixture.key)
        }
    }
}
