import Foundation
import Testing
import TestSupport

/// `sessionstore derive`: condition suites made from stored sessions, their labels kept, exported and
/// filtered on, and two versions of a transcriber compared over a suite, condition by condition.
@Suite struct DeriveCommandTests {
    static let fixtures = ["short-dictation", "two-speakers", "paused-resumed"]
    static let conditions = ["clean", "noise:white:10", "pauses:2000", "overlap:-6"]

    /// The three fixtures recorded in process; returns their ids by fixture.
    static func recordFixtures(in cli: CLIRunner) async throws -> [String: String] {
        try #require(try await cli.runInProcess(["init"]).status == 0)
        var ids: [String: String] = [:]
        for name in fixtures {
            let recorded = try await cli.runInProcess(["record", "--audio", DriveCommandTests.audio.appendingPathComponent("\(name).flac").path,
                                                       "--script", DriveCommandTests.audio.appendingPathComponent("\(name).json").path])
            try #require(recorded.status == 0, "\(recorded.stderr)")
            ids[name] = String(recorded.stdout.split(separator: " ")[2])
        }
        return ids
    }

    static func rows(_ text: String) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]], "not a JSON array: \(text)")
    }

    static func derive(_ cli: CLIRunner, _ sources: [String] = ["--all"], conditions: [String] = conditions) async throws -> [[String: Any]] {
        let derived = try await cli.runInProcess(["derive"] + sources + ["--suite", "t1", "--format", "json"]
                                                 + conditions.flatMap { ["--condition", $0] })
        try #require(derived.status == 0, "\(derived.stderr)")
        return try rows(derived.stdout)
    }

    @Test(.timeLimit(.minutes(10)))
    func aSuiteIsEveryConditionOfEverySourceLabelledKeptOnceAndSelectableByItsLabels() async throws {
        try await withCLI { cli in
            let ids = try await Self.recordFixtures(in: cli)
            let rows = try await Self.derive(cli)
            #expect(rows.count == Self.fixtures.count * Self.conditions.count)
            #expect(Set(rows.compactMap { $0["source"] as? String }) == Set(ids.values))
            #expect(rows.allSatisfy { ($0["appended"] as? Int ?? 0) > 0 && $0["duplicates"] as? Int == 0 })
            let twoSpeakers = rows.filter { $0["source"] as? String == ids["two-speakers"] }
            #expect(twoSpeakers.allSatisfy { $0["speaker"] as? String == "awb+slt" }, "the segments' speakers, joined")
            let labels = try #require(rows.first?["labels"] as? [String: String])
            #expect(labels["suite"] == "t1" && labels["condition"] == "clean" && labels["derived_from"] == rows.first?["source"] as? String)

            // Deterministic: derived again, the same sessions, all stored already.
            let again = try await Self.derive(cli)
            #expect(again.map { $0["session"] as? String } == rows.map { $0["session"] as? String })
            #expect(again.allSatisfy { $0["appended"] as? Int == 0 && ($0["duplicates"] as? Int ?? 0) > 0 })

            // The session list keeps the labels and filters on them; the derived sessions are not sources of --all again.
            let noisy = try await cli.runInProcess(["sessions", "--label", "suite=t1", "--label", "condition=noise:white:10", "--format", "json"])
            try #require(noisy.status == 0, "\(noisy.stderr)")
            let listed = try Self.rows(noisy.stdout)
            #expect(listed.count == Self.fixtures.count)
            #expect(listed.allSatisfy { ($0["labels"] as? [String: String])?["condition"] == "noise:white:10" })
            let all = try Self.rows(try await cli.runInProcess(["sessions", "--format", "json"]).stdout)
            #expect(all.count == Self.fixtures.count * (1 + Self.conditions.count))
            #expect(all.filter { $0["labels"] is NSNull }.count == Self.fixtures.count, "the recorded fixtures have no labels")

            // A derived session's transcript is its source's; its events carry the labels.
            let pausedSource = try #require(ids["paused-resumed"])
            let stretched = try #require(rows.first { $0["source"] as? String == pausedSource && $0["condition"] as? String == "pauses:2000" })
            let session = try #require(stretched["session"] as? String)
            let text = { (id: String) async throws -> String in try await cli.runInProcess(["transcript", id]).stdout }
            #expect(try await text(session) == (try await text(pausedSource)))
            let events = try await cli.runInProcess(["events", session, "--format", "json"])
            let started = try #require(try Self.rows(events.stdout).first)
            #expect((started["labels"] as? [String: String])?["condition"] == "pauses:2000")
            let exported = try await cli.runInProcess(["export", session, "--format", "json"])
            let document = try DriveCommandTests.json(exported.stdout)
            let exportedSession = try #require((document["sessions"] as? [[String: Any]])?.first)
            #expect((exportedSession["labels"] as? [String: String])?["suite"] == "t1", "the export keeps the labels")
            let sourceAudio = try #require(rows.first { $0["session"] as? String == session.description }?["audio_ms"] as? Int)
            let cleanAudio = try #require(rows.first { $0["source"] as? String == pausedSource && $0["condition"] as? String == "clean" }?["audio_ms"] as? Int)
            #expect(sourceAudio > cleanAudio + 2000, "every gap between segments is 2 s longer: \(cleanAudio) → \(sourceAudio) ms")
        }
    }

    @Test(.timeLimit(.minutes(10)), .enabled(if: pythonTestEnabled("numpy")))
    func theNoiseAddedIsAtTheRatioAskedAsNumpyMeasuresItOnTheExportedAudio() async throws {
        try requirePython("numpy")
        try await withCLI { cli in
            let source = try #require(try await Self.recordFixtures(in: cli)["short-dictation"])
            let rows = try await Self.derive(cli, [source], conditions: ["clean", "noise:white:10"])
            func exported(_ condition: String) async throws -> String {
                let session = try #require(rows.first { $0["source"] as? String == source && $0["condition"] as? String == condition }?["session"] as? String)
                let path = cli.directory.appendingPathComponent("\(condition.replacingOccurrences(of: ":", with: "_")).wav").path
                let written = try await cli.runInProcess(["audio", session, "--out", path])
                try #require(written.status == 0, "\(written.stderr)")
                return path
            }
            let (clean, noisy) = (try await exported("clean"), try await exported("noise:white:10"))
            let transcript = try await cli.runInProcess(["transcript", source, "--format", "json"])
            let script = cli.directory.appendingPathComponent("segments.json")
            try Data(transcript.stdout.utf8).write(to: script)
            let measured = try runPython(["-c", """
                import json, sys, wave, numpy as np
                def read(path):
                    with wave.open(path) as f:
                        return np.frombuffer(f.readframes(f.getnframes()), dtype="<i2").astype(np.float64), f.getframerate()
                clean, rate = read(sys.argv[1])
                noisy, _ = read(sys.argv[2])
                segments = json.load(open(sys.argv[3]))["segments"]
                mask = np.zeros(len(clean), dtype=bool)
                for s in segments:
                    mask[s["start_ms"] * rate // 1000 : s["end_ms"] * rate // 1000] = True
                noise = noisy - clean
                print(round(10 * np.log10(np.mean(clean[mask] ** 2) / np.mean(noise[mask] ** 2)), 3))
                """, clean, noisy, script.path])
            try #require(measured.status == 0, "\(measured.stderr)")
            let snr = try #require(Double(String(decoding: measured.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(abs(snr - 10) < 0.3, "numpy measures \(snr) dB over the segments")
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func twoVersionsDrivenOverASuiteAreComparedConditionByCondition() async throws {
        try await withCLI { cli in
            _ = try await Self.recordFixtures(in: cli)
            _ = try await Self.derive(cli)
            for (label, flaws) in [("v1", "--drop-every 9"), ("v2", "--drop-every 4")] {
                let drove = try await cli.runInProcess(["replay", "--all", "--session-label", "suite=t1", "--drive", DriveCommandTests.echo + " " + flaws,
                                                        "--with-transcript", "--label", label, "--jobs", "2", "--quiet", "--timeout", "300"])
                try #require(drove.status == 0, "\(drove.stderr)")
            }
            let compared = try await cli.runInProcess(["compare", "--baseline", "v1", "--candidate", "v2", "--format", "json"])
            #expect(compared.status == 4, "\(compared.stderr)")
            let document = try DriveCommandTests.json(compared.stdout)
            let sessions = try #require(document["sessions"] as? [[String: Any]])
            #expect(sessions.count == Self.fixtures.count * Self.conditions.count, "only the suite was driven")
            let groups = try #require(document["by_condition"] as? [[String: Any]])
            #expect(Set(groups.compactMap { $0["group"] as? String }) == Set(Self.conditions))
            let baseline = try #require(document["baseline"] as? [String: Any])
            #expect(groups.reduce(0) { $0 + ($1["reference_words"] as? Int ?? 0) } == baseline["reference_words"] as? Int)
            #expect(groups.reduce(0) { $0 + ($1["baseline_errors"] as? Int ?? 0) } == baseline["errors"] as? Int)
            #expect(Set(sessions.compactMap { $0["condition"] as? String }) == Set(Self.conditions))
            let table = try await cli.runInProcess(["compare", "--baseline", "v1", "--candidate", "v2"])
            #expect(table.stdout.contains("by condition: clean "), "\(table.stdout)")
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func whatCannotBeDerivedIsRefusedInOneSentenceAndNothingIsStored() async throws {
        try await withCLI { cli in
            let ids = try await Self.recordFixtures(in: cli)
            let source = try #require(ids["short-dictation"])
            let cases: [([String], Int32, String)] = [
                (["derive", source, "--condition", "noise:brown:3"], 64, "condition \"noise:brown:3\": noise is noise:white|pink|babble:SNR"),
                (["derive", source, "--condition", "noise:babble:5"], 64, "mixes in another source's voice; give at least two sources"),
                (["derive", source, "--condition", "clean", "--label", "Team=x"], 64, "the name must hold only a-z, 0-9, _, - and ."),
                (["derive", source, "--condition", "clean", "--label", "condition=mine"], 64, "label condition is set by derive itself"),
                (["derive", source], 64, "give at least one --condition"),
                (["derive", "--all", source, "--condition", "clean"], 64, "give source sessions or --all, not both"),
                (["sessions", "--label", "condition"], 64, "--label \"condition\" is not NAME=VALUE"),
            ]
            for (arguments, status, message) in cases {
                let refused = try await cli.runInProcess(arguments)
                #expect(refused.status == status, "\(arguments): \(refused.stderr)")
                #expect(refused.stderr.contains(message), "\(arguments): \(refused.stderr)")
            }
            // Derived from a derived session: both conditions, in the order they were applied.
            let once = try await cli.runInProcess(["derive", source, "--condition", "gain:-20", "--format", "json"])
            let onceID = try #require(try Self.rows(once.stdout).first?["session"] as? String, "\(once.stderr)")
            let twice = try await cli.runInProcess(["derive", onceID, "--condition", "gain:-20", "--format", "json"])
            #expect(try Self.rows(twice.stdout).first?["condition"] as? String == "gain:-20,gain:-20", "\(twice.stdout)\(twice.stderr)")
            let composed = try await cli.runInProcess(["sessions", "--label", "condition=gain:-20,gain:-20", "--format", "json"])
            #expect(try Self.rows(composed.stdout).count == 1, "\(composed.stdout)")
            let run = try await cli.runInProcess(["replay", source, "--drive", DriveCommandTests.echo, "--with-transcript", "--timeout", "300"])
            try #require(run.status == 0, "\(run.stderr)")
            let runs = try Self.rows(try await cli.runInProcess(["sessions", "--format", "json"]).stdout).filter { !($0["run_of"] is NSNull) }
            let runID = try #require(runs.first?["session"] as? String)
            let fromRun = try await cli.runInProcess(["derive", runID, "--condition", "clean"])
            #expect(fromRun.status == 64 && fromRun.stderr.contains("is a run of a replay"), "\(fromRun.stderr)")
            // A subject who revoked transcription consent: their session is not derived from.
            let revoked = #"{"type":"consent.revoked","session":"\#(source)","at":"2026-01-05T09:10:00Z","subject":"fixture-subject","consent_type":"transcription","method":"settings_screen"}"#
            let ingested = try await cli.runInProcess(["ingest", "-"], input: Data((revoked + "\n").utf8))
            try #require(ingested.status == 0, "\(ingested.stderr)")
            let withoutConsent = try await cli.runInProcess(["derive", source, "--condition", "clean"])
            #expect(withoutConsent.status == 64 && withoutConsent.stderr.contains("has not granted transcription consent"), "\(withoutConsent.stderr)")
            let listed = try Self.rows(try await cli.runInProcess(["sessions", "--format", "json"]).stdout)
            #expect(listed.count == Self.fixtures.count + 3, "nothing refused was stored: the fixtures, the two derived in turn and the run")
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func erasingTheSourcesSubjectErasesWhatWasDerivedFromTheirSessions() async throws {
        try await withCLI { cli in
            let source = try #require(try await Self.recordFixtures(in: cli)["short-dictation"])
            let derived = try await Self.derive(cli, [source], conditions: ["clean", "gain:-20"])
            #expect(derived.count == 2)
            let erased = try await cli.runInProcess(["erase", "--subject", "fixture-subject", "--yes"])
            try #require(erased.status == 0, "\(erased.stderr)")
            let listed = try Self.rows(try await cli.runInProcess(["sessions", "--format", "json"]).stdout)
            let derivedIDs = Set(derived.compactMap { $0["session"] as? String })
            let statuses = listed.filter { derivedIDs.contains($0["session"] as? String ?? "") }.map { $0["status"] as? String }
            #expect(statuses == ["erased", "erased"], "the derived sessions are the subject's: \(listed)")
            let transcript = try await cli.runInProcess(["transcript", try #require(derivedIDs.first)])
            #expect(transcript.status != 0 && transcript.stderr.contains("erased"), "\(transcript.stderr)")
        }
    }
}
