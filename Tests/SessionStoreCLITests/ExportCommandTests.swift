import EventLog
import Foundation
import Migrations
import SessionLog
import SessionModel
import Testing
import TestSupport

/// `sessionstore export` through the built binary: golden files, and every export read back by the
/// parsers people use (tools/format-reader/read_export.py).
@Suite struct ExportCommandTests {
    static let s = OutputFixture.session
    static let updating = ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] != nil

    static let goldenCases: [(name: String, arguments: [String])] = [
        ("export-all.json", ["export", "--all"]),
        ("export-all.csv", ["export", "--all", "--format", "csv"]),
        ("export-all-partials-excel.csv", ["export", "--all", "--format", "csv", "--partials", "--excel"]),
        ("export.vtt", ["export", "0f1e2d3c", "--format", "vtt"]),
        ("export.srt", ["export", "0f1e2d3c", "--format", "srt"]),
        ("export-redacted.json", ["export", "0f1e2d3c-4B5A", "--redact"]),
    ]

    @Test(.timeLimit(.minutes(10)), arguments: goldenCases.map(\.name))
    func everyExportFormatMatchesItsGoldenFileAndReadsBack(_ name: String) async throws {
        let arguments = try #require(Self.goldenCases.first { $0.name == name }?.arguments)
        try await withCLI { cli in
            try OutputFixture.copy(into: cli)
            let out = cli.directory.appendingPathComponent(name)
            let outcome = try await cli.runInProcess(arguments + ["--out", out.path])
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let output = try Data(contentsOf: out)
            let golden = OutputFixture.golden.appendingPathComponent(name)
            if Self.updating { try output.write(to: golden) }
            #expect(output == (try Data(contentsOf: golden)), "\(name) differs from its golden file")
            let again = try await cli.runInProcess(arguments)
            #expect(Data(again.stdout.utf8) == output, "the same store exports the same bytes on every run")

            let kind = String(name.split(separator: ".").last!)
            let read = try ExportReader.read(kind, out)
            switch kind {
            case "json":
                #expect(read["valid"] as? Bool == true, "\(read["errors"] ?? "")")
            case "csv":
                let rows = try #require(read["rows"] as? [[String]])
                #expect(rows.allSatisfy { $0.count == rows[0].count })
                #expect((read["pandas_rows"] as? [[String]])?.count == rows.count - 1)
            default:
                #expect((read["cues"] as? [[String: Any]])?.count == 2, "one cue per committed segment")
            }
        }
    }

    /// Segments whose text breaks naive writers, in two sessions whose ids share their first 8 characters.
    static let hostile = [
        "a, b and c", #"she said "no", twice"#, "line one\nline two", "crlf\r\ninside", "blank\n\n\nlines",
        "emoji 👩🏽‍⚕️ and מה נשמע and مرحبا", String(repeating: "long ", count: 400), "=1+2", "+44 20", "-- dash",
        "@mention", "\ttabbed", "a <b> & c --> d",
    ]
    static let first = "abcdef12-0000-4000-8000-000000000001"
    static let second = "abcdef12-0000-4000-8000-000000000002"

    private func ingestHostileSessions(_ cli: CLIRunner) throws {
        try cli.run(["init"])
        var lines: [String] = []
        func line(_ object: [String: Any]) throws {
            lines.append(String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self))
        }
        for (number, session) in [Self.first, Self.second].enumerated() {
            let day = "2026-04-0\(number + 1)T09:00:"
            try line(["type": "session.started", "session": session, "at": day + "00.000Z", "subject": "pat", "locale": "en"])
            for (index, text) in Self.hostile.enumerated() {
                try line(["type": "transcript.committed", "session": session, "at": day + String(format: "%02d.000Z", index + 1),
                          "segment": "seg-\(index)", "text": text, "start_ms": index * 1000, "end_ms": index * 1000 + 900,
                          "speaker": index == 0 ? "Dr <A> & B" : "Nurse"])
            }
        }
        let ingest = try cli.run(["ingest", "-"], input: Data(lines.joined(separator: "\n").utf8))
        try #require(ingest.status == 0, "\(ingest.stderr)")
    }

    @Test(.timeLimit(.minutes(10)))
    func hostileTextRoundTripsThroughPythonsCSVAndPandasAndExcelModeDefangsFormulas() async throws {
        try await withCLI { cli in
            try ingestHostileSessions(cli)
            let plain = cli.directory.appendingPathComponent("plain.csv")
            #expect(try await cli.runInProcess(["export", Self.first, "--format", "csv", "--out", plain.path]).status == 0)
            let read = try ExportReader.read("csv", plain)
            #expect(read["bom"] as? Bool == false)
            let rows = try #require(read["rows"] as? [[String]])
            try #require(rows.count == Self.hostile.count + 1)
            #expect(rows[0] == ["session_id", "segment_id", "start_ms", "end_ms", "start", "end", "speaker", "confidence", "text"])
            try #require(rows.allSatisfy { $0.count == 9 }, "nine columns in every row")
            #expect(rows.dropFirst().map { $0[8] } == Self.hostile, "python's csv reads every text back exactly")
            #expect((read["pandas_rows"] as? [[String]])?.map { $0.count > 8 ? $0[8] : "" } == Self.hostile, "and so does pandas")
            #expect(rows[1][4] == "00:00:00.000" && rows[2][5] == "00:00:01.900")

            let excel = cli.directory.appendingPathComponent("excel.csv")
            #expect(try await cli.runInProcess(["export", Self.first, "--format", "csv", "--excel", "--out", excel.path]).status == 0)
            let excelRead = try ExportReader.read("csv", excel)
            #expect(excelRead["bom"] as? Bool == true)
            let texts = try #require(excelRead["pandas_rows"] as? [[String]]).map { $0.count > 8 ? $0[8] : "" }
            let formulaStarts: Set<Character> = ["=", "+", "-", "@", "\t", "\r"]
            for (text, original) in zip(texts, Self.hostile) {
                #expect(text == (formulaStarts.contains(original.first!) ? "'" + original : original))
            }
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func subtitlesHoldOneCuePerSegmentForRealParsersAndSeveralSessionsGoToADirectory() async throws {
        try await withCLI { cli in
            try ingestHostileSessions(cli)
            let refused = try await cli.runInProcess(["export", "--all", "--format", "vtt"])
            #expect(refused.status == 64)
            #expect(refused.stderr.contains("a VTT file holds one session, not 2"))
            #expect(refused.stdout.isEmpty)

            let directory = cli.directory.appendingPathComponent("subtitles")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for format in ["vtt", "srt"] {
                #expect(try await cli.runInProcess(["export", "--all", "--format", format, "--out", directory.path]).status == 0)
                for session in [Self.first, Self.second] {
                    let read = try ExportReader.read(format, directory.appendingPathComponent("\(session).\(format)"))
                    let cues = try #require(read["cues"] as? [[String: Any]])
                    try #require(cues.count == Self.hostile.count, "one cue per segment in \(format)")
                    let texts = cues.map { $0["text"] as? String ?? "" }
                    let expected = Self.hostile.map { text in
                        text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n").joined(separator: "\n")
                    }
                    if format == "vtt" {
                        #expect(texts == expected)
                        #expect(cues[0]["voice"] as? String == "Dr <A> & B")
                    } else {
                        #expect(texts == ["Dr <A> & B: " + expected[0]] + expected.dropFirst().map { "Nurse: " + $0 })
                    }
                }
            }
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func sessionsAreNamedByUniquePrefixesAndBadNamesFailCleanly() async throws {
        try await withCLI { cli in
            try ingestHostileSessions(cli)
            let ambiguous = try await cli.runInProcess(["export", "abcdef12"])
            #expect(ambiguous.status == 64)
            #expect(ambiguous.stderr.contains("session abcdef12 is ambiguous: it begins 2 session ids"))
            let short = try await cli.runInProcess(["export", "abcdef1"])
            #expect(short.status == 64)
            let out = cli.directory.appendingPathComponent("never.json")
            let unknown = try await cli.runInProcess(["export", "ffffffff", "--out", out.path])
            #expect(unknown.status == 65)
            #expect(unknown.stderr == "sessionstore: error: the store has no session whose id begins ffffffff\n")
            #expect(!FileManager.default.fileExists(atPath: out.path), "no file is left behind")
            let byPrefix = try await cli.runInProcess(["export", "abcdef12-0000-4000-8000-000000000002"])
            #expect(byPrefix.status == 0)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(byPrefix.stdout.utf8)) as? [String: Any])
            #expect((document["sessions"] as? [[String: Any]])?.map { $0["session"] as? String } == [Self.second])
            #expect(try await cli.runInProcess(["export", "--all", Self.first]).status == 64, "sessions or --all, not both")
            #expect(try await cli.runInProcess(["export", Self.first, "--excel"]).status == 64, "--excel is for csv")
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func everyExportIsRecordedInTheAuditStreamAndTheSessionListIgnoresIt() async throws {
        try await withCLI { cli in
            try ingestHostileSessions(cli)
            #expect(try await cli.runInProcess(["export", "--all", "--format", "csv", "--actor", "auditor-7"]).status == 0)
            #expect(try await cli.runInProcess(["export", Self.first, "--format", "srt"], environment: ["USER": "alice"]).status == 0)
            let sessions = try await cli.runInProcess(["sessions", "--format", "csv"])
            #expect(sessions.stdout.split(separator: "\r\n").count == 3, "header and the two sessions, no audit stream")

            let log = try EventLog.open(at: cli.storePath, key: .keyFile(cli.keyPath), options: .testing)
            defer { try? log.close() }
            let exports = try log.readStream(SessionStreams.audit).map { try SessionMigrations.codec.decode($0).event.payload }
            try #require(exports.count == 2)
            guard case .exportPerformed(let all) = exports[0], case .exportPerformed(let one) = exports[1] else {
                Issue.record("the audit stream holds \(exports)")
                return
            }
            #expect(all.actor == "auditor-7" && all.format == "csv")
            #expect(all.sessions.map { $0.uuidString.lowercased() } == [Self.first, Self.second])
            #expect(one.actor == "alice" && one.format == "srt" && one.sessions.count == 1)
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func aSubjectBundleHoldsEverySessionRecordingAndConsentWithCheckableHashes() async throws {
        try await withCLI { cli in
            try OutputFixture.copy(into: cli)
            let bundle = cli.directory.appendingPathComponent("dr-okafor.zip")
            let arguments = ["export", "--subject", OutputFixture.subject, "--bundle", bundle.path, "--as-of", "2026-03-03T00:00:00Z"]
            let made = try await cli.runInProcess(arguments)
            #expect(made.status == 0, "\(made.stderr)")
            let first = try Data(contentsOf: bundle)
            #expect(try await cli.runInProcess(arguments).status == 0)
            #expect(try Data(contentsOf: bundle) == first, "the same store gives the same ZIP")

            let read = try ExportReader.read("zip", bundle)
            let names = try #require(read["names"] as? [String])
            #expect(names == ["manifest.json", "consent.json", "recordings/\(Self.s)-mic-1.flac", "sessions/\(Self.s).json",
                              "sessions/\(Self.s).vtt", "sessions/7a7a7a7a-1111-4222-8333-444455556666.json",
                              "sessions/7a7a7a7a-1111-4222-8333-444455556666.vtt"])
            let checked = try #require(read["checked"] as? [[String: Any]])
            #expect(checked.count == names.count - 1)
            #expect(checked.allSatisfy { $0["size_ok"] as? Bool == true && $0["sha256_ok"] as? Bool == true })
            let manifest = try #require(read["manifest"] as? [String: Any])
            #expect(manifest["as_of"] as? String == "2026-03-03T00:00:00.000Z")
            #expect((read["consent"] as? [String: Any]).flatMap { $0["consent"] as? [Any] }?.count == 3)
            let inner = try #require(read["inner"] as? [String: Any])
            #expect(inner["sessions/\(Self.s).json"] as? Bool == true, "each session's JSON is valid against the schema")
            #expect(inner["sessions/\(Self.s).vtt"] as? Int == 2, "and its VTT holds one cue per segment")

            // The bundled FLAC holds exactly the samples `sessionstore audio` gives back.
            let wav = cli.directory.appendingPathComponent("mic-1.wav")
            #expect(try await cli.runInProcess(["audio", Self.s, "--out", wav.path]).status == 0)
            let wavSamples = try runPython(["-c", """
                import hashlib, soundfile, sys
                samples, _ = soundfile.read(sys.argv[1], dtype="int16", always_2d=False)
                print(hashlib.sha256(samples.astype("<i2").tobytes()).hexdigest(), end="")
                """, wav.path])
            let flac = try #require((read["flac"] as? [String: [String: Any]])?["recordings/\(Self.s)-mic-1.flac"])
            #expect(flac["sha256"] as? String == String(decoding: wavSamples.stdout, as: UTF8.self))
            #expect(flac["rate"] as? Int == 16000)

            let nobody = try await cli.runInProcess(["export", "--subject", "nobody", "--bundle", bundle.path])
            #expect(nobody.status == 65)
            #expect(try Data(contentsOf: bundle) == first, "a refused bundle leaves the earlier file alone")
        }
    }
}
