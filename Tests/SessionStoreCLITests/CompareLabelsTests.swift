import Foundation
import Testing
import TestSupport

/// `compare --baseline A --candidate B` on the built binary: two versions of a transcriber (echo_target.py
/// with known flaws) driven over the six fixture sessions, and every figure recomputed by code nobody here
/// wrote: scipy.stats and numpy (tools/replay/check_comparison.py) and NIST sclite's sc_stats
/// (tools/replay/check_mapsswe.py).
@Suite struct CompareLabelsTests {
    static let sctkStats = "/usr/lib/sctk/bin/sc_stats"
    static var sctkEnabled: Bool { ProcessInfo.processInfo.environment["CI"] != nil || FileManager.default.isExecutableFile(atPath: sctkStats) }

    /// The fixtures recorded (`demo`), then one suite of runs per label: `flaws` are echo_target.py's options.
    static func driveVersions(_ versions: [(label: String, flaws: String)], in cli: CLIRunner) throws {
        let demo = try cli.run(["demo", "--fixtures", DriveCommandTests.audio.path])
        try #require(demo.status == 0, "\(demo.stderr)")
        for version in versions {
            let suite = try cli.run(["replay", "--all", "--drive", DriveCommandTests.echo + " " + version.flaws, "--with-transcript",
                                     "--label", version.label, "--jobs", "2"])
            try #require(suite.status == 0, "\(suite.stderr)")
        }
    }

    static func check(_ script: String, _ comparison: String, in cli: CLIRunner, _ arguments: [String] = []) throws -> String {
        let input = cli.directory.appendingPathComponent("comparison.json")
        try Data(comparison.utf8).write(to: input)
        let path = DriveCommandTests.tools.appendingPathComponent("replay/\(script)").path
        let checked = try runPython([path] + arguments, input: input)
        let output = String(decoding: checked.stdout, as: UTF8.self)
        #expect(checked.status == 0, "\(script) disagrees:\n\(output)\(checked.stderr)")
        return output
    }

    @Test(.timeLimit(.minutes(10)), .enabled(if: pythonTestEnabled("scipy, numpy")))
    func aWorseCandidateFailsTheGateAnUnclearOneDoesNotAndEveryNumberAgreesWithScipyNumpyAndSclite() async throws {
        try requirePython("scipy, numpy")
        try await withCLI { cli in
            // v1 and v2 differ in every session; v3 and v4 (the fixtures hold 15 to 29 words) one way in some, the other in others.
            try Self.driveVersions([("v1", "--drop-every 9"), ("v2", "--drop-every 5 --repeat-every 13"),
                                    ("v3", "--replace-every 7"), ("v4", "--drop-word 16 --replace-every 9")], in: cli)
            let worse = try cli.run(["compare", "--baseline", "v1", "--candidate", "v2", "--format", "json", "--junit", "gate.xml"])
            #expect(worse.status == 4, "\(worse.stderr)")
            #expect(worse.stderr.contains("candidate v2 is worse than baseline v1 by more than 0"), "\(worse.stderr)")
            let document = try DriveCommandTests.json(worse.stdout)
            #expect(document["verdict"] as? String == "worse")
            #expect((document["sessions"] as? [[String: Any]])?.count == 6, "every fixture has a run of both")
            #expect((document["ci_low"] as? Double ?? 0) > 0)
            let baseline = try #require(document["baseline"] as? [String: Any])
            #expect(baseline["label"] as? String == "v1" && baseline["commit_latency_p50_ms"] is Int)
            // Every word and every error of the sessions is in one length group and in one speaker's.
            let candidateErrors = (document["candidate"] as? [String: Any])?["errors"] as? Int
            for key in ["by_segment_length", "by_speaker"] {
                let groups = try #require(document[key] as? [[String: Any]], "\(key)")
                #expect(groups.reduce(0) { $0 + ($1["reference_words"] as? Int ?? 0) } == baseline["reference_words"] as? Int, "\(key)")
                #expect(groups.reduce(0) { $0 + ($1["candidate_errors"] as? Int ?? 0) } == candidateErrors, "\(key)")
            }
            let speakers = (document["by_speaker"] as? [[String: Any]] ?? []).compactMap { $0["group"] as? String }
            #expect(speakers == ["awb", "kal16", "rms", "slt"], "the fixture scripts' speakers: \(speakers)")
            _ = try Self.check("check_comparison.py", worse.stdout, in: cli)
            if Self.sctkEnabled {
                try #require(FileManager.default.isExecutableFile(atPath: Self.sctkStats), "sctk's sc_stats is needed (tools/test installs it)")
                _ = try Self.check("check_mapsswe.py", worse.stdout, in: cli,
                                   ["--sessionstore", CLIRunner.binary().path, "--store", cli.storePath,
                                    "--key-file", cli.directory.appendingPathComponent("sessions.key").path])
            }
            let xml = try String(contentsOf: cli.directory.appendingPathComponent("gate.xml"), encoding: .utf8)
            #expect(xml.contains("failures=\"1\"") && xml.contains("<failure message=\"candidate v2 is worse"))

            // The trend: both labels in the order they ran, each over the six sessions, as the comparison has them.
            let trend = try cli.run(["runs", "--format", "json"])
            #expect(trend.status == 0, "\(trend.stderr)")
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(trend.stdout.utf8)) as? [[String: Any]])
            #expect(rows.map { $0["label"] as? String } == ["v1", "v2", "v3", "v4"])
            #expect(rows.map { $0["sessions"] as? Int } == [6, 6, 6, 6])
            #expect(rows.first?["word_error_rate"] as? Double == baseline["word_error_rate"] as? Double)
            #expect(rows[1]["errors"] as? Int == (document["candidate"] as? [String: Any])?["errors"] as? Int)

            // The other way round the candidate is better and passes; a wide enough margin passes a worse one.
            let better = try cli.run(["compare", "--baseline", "v2", "--candidate", "v1", "--format", "json"])
            #expect(better.status == 0, "\(better.stderr)")
            #expect(try DriveCommandTests.json(better.stdout)["verdict"] as? String == "better")
            let margin = try cli.run(["compare", "--baseline", "v1", "--candidate", "v2", "--max-worse", "0.5"])
            #expect(margin.status == 0, "\(margin.stderr)")
            #expect(margin.stdout.contains("verdict: worse") && margin.stdout.contains("passed: not worse by more than 0.5"), "\(margin.stdout)")
            // One bootstrap draw is no interval: no verdict, and the gate does not fail on it.
            let oneDraw = try cli.run(["compare", "--baseline", "v1", "--candidate", "v2", "--resamples", "1", "--format", "json"])
            #expect(oneDraw.status == 0, "\(oneDraw.stderr)")
            let undecided = try DriveCommandTests.json(oneDraw.stdout)
            #expect(undecided["verdict"] as? String == "inconclusive" && undecided["passed"] as? Bool == true)
            #expect(undecided["inconclusive_because"] as? String == "1 resample; a verdict needs at least 1000")

            // Versions that differ in few sessions, each way: no significant difference, as scipy says too.
            let compared = try cli.run(["compare", "--baseline", "v3", "--candidate", "v4", "--format", "json", "--seed", "7",
                                        "--resamples", "5000", "--confidence", "0.9"])
            #expect(compared.status == 0, "\(compared.stderr)")
            let unclear = try DriveCommandTests.json(compared.stdout)
            #expect(unclear["verdict"] as? String == "no_significant_difference")
            #expect(unclear["seed"] as? Int == 7 && unclear["resamples"] as? Int == 5000 && unclear["confidence"] as? Double == 0.9)
            _ = try Self.check("check_comparison.py", compared.stdout, in: cli)
            let again = try cli.run(["compare", "--baseline", "v3", "--candidate", "v4", "--format", "json", "--seed", "7",
                                     "--resamples", "5000", "--confidence", "0.9"])
            #expect(again.stdout == compared.stdout, "the same runs and seed give the same numbers")
            let csv = try cli.run(["compare", "--baseline", "v3", "--candidate", "v4", "--format", "csv"])
            #expect(csv.stdout.hasPrefix("source,condition,baseline_run,candidate_run,reference_words,baseline_errors,candidate_errors"))
            #expect(csv.stdout.split(separator: "\r\n").count == 7, "a header and one row per session: \(csv.stdout)")
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func labelsWithoutRunsMixedFormsAndErasedSourcesAreRefusedInOneSentence() async throws {
        try await withCLI { cli in
            let source = try DriveCommandTests.record("short-dictation", in: cli)
            let drove = try cli.run(["replay", source, "--drive", DriveCommandTests.echo, "--with-transcript", "--label", "v1"])
            try #require(drove.status == 0, "\(drove.stderr)")
            let refusals: [([String], Int32, String)] = [
                (["compare", "--baseline", "v1", "--candidate", "v9"], 65, "no run in the store is labelled \"v9\""),
                // A negative margin and a margin beyond 1 are values: the labels are what is refused.
                (["compare", "--baseline", "v1", "--candidate", "v9", "--max-worse", "-0.1"], 65, "no run in the store is labelled \"v9\""),
                (["compare", "--baseline", "v1", "--candidate", "v9", "--max-worse", "1.5"], 65, "no run in the store is labelled \"v9\""),
                (["derive", source, "--condition", "gain:-20", "--seed", "-1"], 64, "'-1' is invalid for '--seed"),
                (["compare", "--baseline", "v1"], 64, "give both --baseline and --candidate"),
                (["compare", source, source, "--baseline", "v1", "--candidate", "v2"], 64, "not both"),
                (["compare", "--baseline", "v1", "--candidate", "v2", "--max-wer", "0.2"], 64, "--max-wer checks one run"),
                (["compare", source, source, "--max-worse", "0.1"], 64, "--max-worse compare labels"),
                (["compare", "--baseline", "v1", "--candidate", "v2", "--confidence", "1.5"], 64, "--confidence 1.5 is not between 0 and 1"),
                (["compare", source], 64, "compare needs SOURCE and RUN"),
            ]
            for (arguments, status, sentence) in refusals {
                let refused = try cli.run(arguments)
                #expect(refused.status == status, "\(arguments): \(refused.stderr)")
                #expect(refused.stderr.contains(sentence), "\(arguments): \(refused.stderr)")
            }
            // A label against itself is answered as the API answers it: no verdict, and why.
            let itself = try cli.run(["compare", "--baseline", "v1", "--candidate", "v1", "--format", "json"])
            #expect(itself.status == 0, "\(itself.stderr)")
            let same = try DriveCommandTests.json(itself.stdout)
            #expect(same["verdict"] as? String == "inconclusive" && same["difference"] as? Double == 0)
            #expect((same["inconclusive_because"] as? String)?.contains("the same label, \"v1\"") == true, "\(itself.stdout)")
            // A person's erasure leaves nothing of their sessions to compare: the runs of an erased source are left out.
            #expect((try cli.run(["runs", "--format", "csv"])).stdout.split(separator: "\r\n").count == 2, "a header and v1")
            let erased = try cli.run(["erase", "--subject", "fixture-subject", "--yes"])
            try #require(erased.status == 0, "\(erased.stderr)")
            let none = try cli.run(["compare", "--baseline", "v1", "--candidate", "v2"])
            #expect(none.status == 65 && none.stderr.contains("no run in the store is labelled \"v1\""), "\(none.stderr)")
            #expect((try cli.run(["runs", "--format", "csv"])).stdout.split(separator: "\r\n").count == 1, "the header alone")
        }
    }
}
