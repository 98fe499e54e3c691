import Foundation
import Testing
import TestSupport

/// `replay --drive`, `compare` and suites, on the built binary, against tools/replay/echo_target.py
/// (a deterministic transcriber that echoes the session's commits, with ways to fail) and the real
/// recognizer of tools/asr.
@Suite struct DriveCommandTests {
    static let tools = RepositoryFixtures.root.deletingLastPathComponent().appendingPathComponent("tools")
    static let echo = "python3 " + tools.appendingPathComponent("replay/echo_target.py").path
    static let recognizer = "python3 " + tools.appendingPathComponent("asr/pocketsphinx_target.py").path
    static let audio = RepositoryFixtures.root.appendingPathComponent("audio")

    /// Records the fixture `name` (audio and timed script); returns its session id.
    static func record(_ name: String, in cli: CLIRunner, extra: [String] = []) throws -> String {
        if !FileManager.default.fileExists(atPath: cli.storePath) { try #require(cli.run(["init"]).status == 0) }
        let recorded = try cli.run(["record", "--audio", audio.appendingPathComponent("\(name).flac").path,
                                    "--script", audio.appendingPathComponent("\(name).json").path] + extra)
        try #require(recorded.status == 0, "\(recorded.stderr)")
        let id = recorded.stdout.split(separator: " ").dropFirst(2).first.map(String.init)
        return try #require(id.flatMap { UUID(uuidString: $0) }, "no session id in \(recorded.stdout)").uuidString.lowercased()
    }

    static func sessionIDs(_ cli: CLIRunner) throws -> [String] {
        let listed = try cli.run(["sessions", "--format", "json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        return rows.compactMap { $0["session"] as? String }
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }

    @Test(.timeLimit(.minutes(10)))
    func aPerfectTargetScoresZeroAndTwoRunsOfItAreStoredWithTheSameTranscript() async throws {
        try await withCLI { cli in
            let source = try Self.record("short-dictation", in: cli)
            var runs: [String] = []
            for _ in 0..<2 {
                let drove = try cli.run(["replay", source, "--drive", Self.echo, "--with-transcript", "--expect", "--label", "echo 1.0",
                                         "--format", "json"])
                #expect(drove.status == 0, "\(drove.stderr)")
                let report = try Self.json(drove.stdout)
                #expect(report["word_error_rate"] as? Double == 0)
                #expect(report["passed"] as? Bool == true)
                runs.append(try #require(report["run"] as? String))
            }
            #expect(Set(runs).count == 2)
            let listed = try cli.run(["sessions", "--format", "json"])
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            for run in runs {
                let row = try #require(rows.first { $0["session"] as? String == run })
                #expect(row["run_of"] as? String == source)
                #expect(row["label"] as? String == "echo 1.0")
            }
            let first = try cli.run(["transcript", runs[0]]), second = try cli.run(["transcript", runs[1]])
            #expect(first.status == 0 && !first.stdout.isEmpty)
            #expect(first.stdout == second.stdout)
            let events = try cli.run(["events", runs[0]])
            let record = try #require(events.stdout.split(separator: "\n").map { try Self.json(String($0)) }
                .first { $0["type"] as? String == "replay.run" })
            #expect(record["source_session"] as? String == source)
            #expect(record["command"] as? String == Self.echo)
            #expect(record["outcome"] as? String == "passed")
            #expect(record["speed"] as? String == "max")
        }
    }

    @Test(.timeLimit(.minutes(10)), .enabled(if: pythonTestEnabled("junitparser")))
    func aTargetThatDropsOneWordScoresExactlyOneOverNAndFailsAStrictCheckInJUnit() async throws {
        try requirePython("junitparser")
        try await withCLI { cli in
            let source = try Self.record("short-dictation", in: cli)
            let drove = try cli.run(["replay", source, "--drive", Self.echo + " --drop-word 4", "--with-transcript", "--expect",
                                     "--format", "json", "--max-wer", "0.01", "--junit", "suite.xml"])
            #expect(drove.status == 4, "\(drove.stderr)")
            let report = try Self.json(drove.stdout)
            let words = try #require(report["reference_words"] as? Int)
            #expect(words > 10)
            #expect(report["deletions"] as? Int == 1 && report["substitutions"] as? Int == 0 && report["insertions"] as? Int == 0)
            #expect(abs((report["word_error_rate"] as? Double ?? -1) - (1.0 / Double(words) * 1e6).rounded() / 1e6) < 1e-9)
            #expect(drove.stderr.contains("worst segment segment-1"), "\(drove.stderr)")
            let xml = cli.directory.appendingPathComponent("suite.xml").path
            let parsed = try runPython(["-c", """
                import sys, junitparser
                xml = junitparser.JUnitXml.fromfile(sys.argv[1])
                cases = [case for suite in xml for case in suite]
                print(len(cases), sum(1 for case in cases for r in case.result if isinstance(r, junitparser.Failure)))
                print(cases[0].result[0].message)
                """, xml])
            try #require(parsed.status == 0, "\(parsed.stderr)")
            let lines = String(decoding: parsed.stdout, as: UTF8.self).split(separator: "\n")
            #expect(lines.first == "1 1")
            #expect(lines.dropFirst().first?.contains("worst segment segment-1") == true)
            // Without the strict threshold the same run passes, and `compare` agrees with --expect.
            let run = try #require(report["run"] as? String)
            let compared = try cli.run(["compare", source, run, "--format", "json"])
            #expect(compared.status == 0, "\(compared.stderr)")
            #expect(try Self.json(compared.stdout)["word_error_rate"] as? Double == report["word_error_rate"] as? Double)
        }
    }

    @Test(.timeLimit(.minutes(10)), arguments: [
        (" --crash-after 5", "exited with status 3"),
        (" --garbage-after 5", "wrote an invalid event: output line 1: is not valid JSON"),
        (" --linger 60", "silent 2 s after its input ended"),
    ])
    func aTargetThatCrashesHangsOrWritesGarbageFailsWithExitFiveAndNothingIsStored(_ flaw: String, _ sentence: String) async throws {
        try await withCLI { cli in
            let source = try Self.record("short-dictation", in: cli)
            let before = try Self.sessionIDs(cli)
            let clock = ContinuousClock(), started = clock.now
            let drove = try cli.run(["replay", source, "--drive", Self.echo + flaw, "--with-transcript", "--timeout", "2"])
            #expect(drove.status == 5)
            #expect(drove.stderr.contains(sentence), "\(drove.stderr)")
            #expect(drove.stderr.filter { $0 == "\n" }.count <= 2, "one sentence (and the target's own note): \(drove.stderr)")
            #expect(clock.now - started < .seconds(60), "a hang is ended by --timeout")
            #expect(try Self.sessionIDs(cli) == before)
        }
    }

    /// Under load the driver could already be waiting to hand over the next event when the target's
    /// take of the one before was counted, which cleared the wait: half of such drives never ended.
    @Test(.timeLimit(.minutes(10)))
    func aTargetThatStopsReadingIsEndedByTheTimeout() async throws {
        try await aTargetThatCrashesHangsOrWritesGarbageFailsWithExitFiveAndNothingIsStored(" --hang-after 5", "stopped reading its input")
    }

    /// Whether `pid` runs (a zombie waiting for an init that does not reap does not).
    static func isRunning(_ pid: pid_t) -> Bool {
        #if os(Linux)
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let state = stat.split(separator: ")").last?.split(separator: " ").first else { return false }
        return state != "Z"
        #else
        return kill(pid, 0) == 0
        #endif
    }

    /// The target runs in a process group of its own, which a terminal's Ctrl-C does not reach.
    @Test(.timeLimit(.minutes(10)), arguments: [SIGINT, SIGTERM])
    func stoppingTheDriverWithASignalStopsItsTarget(_ signal: Int32) async throws {
        try await withCLI { cli in
            let source = try Self.record("short-dictation", in: cli)
            let pidFile = cli.directory.appendingPathComponent("target.pid").path
            let drive = try cli.start(["replay", source, "--drive", "sh -c 'echo $$ > \(pidFile); exec \(Self.echo) --hang-after 5'",
                                       "--with-transcript", "--timeout", "600", "--no-store"])
            let clock = ContinuousClock(), started = clock.now
            var target: pid_t?
            while target == nil, clock.now - started < .seconds(120) {
                try await Task.sleep(for: .milliseconds(50))
                target = (try? String(contentsOfFile: pidFile, encoding: .utf8)).flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            }
            let pid = try #require(target, "the target never started")
            try await Task.sleep(for: .milliseconds(500))
            kill(drive.processIdentifier, signal)
            let outcome = drive.wait(limit: .seconds(60))
            #expect(outcome.signalled && outcome.status == signal, "ended by the signal: \(outcome.status) \(outcome.stderr)")
            let ended = clock.now
            var gone = false
            while !gone, clock.now - ended < .seconds(60) {  // a busy machine reaps slowly: once over 20 s in a full pass
                gone = !Self.isRunning(pid)
                if !gone { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(gone, "the target (pid \(pid)) is still running")
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func aCommandThatCannotStartAndBadOptionsAreRefusedInOneSentence() async throws {
        try await withCLI { cli in
            let source = try Self.record("short-dictation", in: cli)
            let missing = try cli.run(["replay", source, "--drive", "no-such-recognizer --fast"])
            #expect(missing.status == 5)
            #expect(missing.stderr.contains("`no-such-recognizer --fast` could not be started"), "\(missing.stderr)")
            let unquoted = try cli.run(["replay", source, "--drive", "python3 'unclosed"])
            #expect(unquoted.status == 5)
            #expect(unquoted.stderr.contains("a single quote is not closed"))
            let stray = try cli.run(["replay", source, "--expect"])
            #expect(stray.status == 64)
            #expect(stray.stderr.contains("--expect goes with --drive COMMAND"))
            let unchecked = try cli.run(["replay", source, "--drive", Self.echo, "--max-wer", "0.1"])
            #expect(unchecked.status == 64, "a threshold without --expect would be ignored")
            #expect(unchecked.stderr.contains("--max-wer goes with --expect"), "\(unchecked.stderr)")
            #expect(try Self.sessionIDs(cli) == [source], "nothing was driven or stored")
        }
    }

    @Test(.timeLimit(.minutes(15)), .enabled(if: pythonTestEnabled("junitparser")))
    func aSuiteDrivesEveryFixtureButTheRunsAndWritesOneJUnitCasePerSession() async throws {
        try requirePython("junitparser")
        try await withCLI { cli in
            let sources = [try Self.record("short-dictation", in: cli), try Self.record("paused-resumed", in: cli)]
            _ = try cli.run(["replay", sources[0], "--drive", Self.echo, "--with-transcript"])  // a run, which --all leaves out
            let suite = try cli.run(["replay", "--all", "--drive", Self.echo, "--with-transcript", "--expect", "--jobs", "2",
                                     "--format", "csv", "--junit", "suite.xml"])
            #expect(suite.status == 0, "\(suite.stderr)")
            let rows = suite.stdout.split(separator: "\r\n").dropFirst()
            #expect(Set(rows.map { String($0.prefix(36)) }) == Set(sources))
            #expect(rows.allSatisfy { $0.contains(",passed,") })
            let parsed = try runPython(["-c", """
                import sys, junitparser
                xml = junitparser.JUnitXml.fromfile(sys.argv[1])
                print(sum(1 for suite in xml for case in suite if case.is_passed))
                """, cli.directory.appendingPathComponent("suite.xml").path])
            #expect(String(decoding: parsed.stdout, as: UTF8.self) == "2\n", "\(parsed.stderr)")
            // One crashing target in a suite: the others still run, and the suite exits 5.
            let broken = try cli.run(["replay", sources[0], sources[1], "--drive", Self.echo + " --crash-after 1", "--with-transcript"])
            #expect(broken.status == 5)
            #expect(broken.stderr.contains("2 of 2 drives failed"), "\(broken.stderr)")
        }
    }

    /// The real recognizer: every fixture session through pocketsphinx, and each word error rate and its
    /// counts equal to jiwer's on the same normalised words.
    @Test(.timeLimit(.minutes(15)), .enabled(if: pythonTestEnabled("pocketsphinx, jiwer")))
    func theRealRecognizerIsScoredAsJiwerScoresItOnEveryFixture() async throws {
        try requirePython("pocketsphinx, jiwer")
        try await withCLI { cli in
            let fixtures = ["short-dictation", "long-pauses", "dialog-interruptions", "multilingual", "paused-resumed"]
            for fixture in fixtures { _ = try Self.record(fixture, in: cli) }
            let suite = try cli.run(["replay", "--all", "--drive", Self.recognizer, "--expect", "--max-wer", "1", "--label", "default"],
                                    limit: .seconds(600))
            #expect(suite.status == 0, "\(suite.stderr)")
            // Each stored run, scored again by `compare SOURCE RUN` (the report `--expect` prints), against jiwer.
            let listed = try cli.run(["sessions", "--format", "json"])
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            let runs = rows.compactMap { row -> (source: String, run: String)? in
                guard let source = row["run_of"] as? String, let run = row["session"] as? String else { return nil }
                return (source, run)
            }
            #expect(runs.count == fixtures.count, "one stored run of each fixture: \(runs)")
            for (source, run) in runs {
                let scored = try cli.run(["compare", source, run, "--max-wer", "1", "--format", "json"])
                try #require(scored.status == 0, "\(scored.stderr)")
                let report = try Self.json(scored.stdout)
                let segments = try #require(report["segments"] as? [[String: Any]])
                let reference = segments.flatMap { $0["reference"] as? [String] ?? [] }
                let hypothesis = segments.flatMap { $0["hypothesis"] as? [String] ?? [] }
                #expect(reference.count == report["reference_words"] as? Int)
                #expect(hypothesis.count == report["hypothesis_words"] as? Int)
                let jiwer = try runPython(["-c", """
                    import json, sys, jiwer
                    case = json.load(sys.stdin)
                    out = jiwer.process_words(" ".join(case["r"]), " ".join(case["h"]))
                    print(json.dumps([out.wer, out.substitutions, out.deletions, out.insertions]))
                    """], input: try Self.file(["r": reference, "h": hypothesis], in: cli))
                try #require(jiwer.status == 0, "\(jiwer.stderr)")
                let theirs = try #require(try JSONSerialization.jsonObject(with: jiwer.stdout) as? [Double])
                #expect(abs(theirs[0] - (report["word_error_rate"] as? Double ?? -1)) < 1e-6, "\(source): jiwer \(theirs)")
                #expect([theirs[1], theirs[2], theirs[3]].map(Int.init)
                        == [report["substitutions"], report["deletions"], report["insertions"]].map { $0 as? Int ?? -1 })
                #expect(reference.count > 0 && hypothesis.count > 0, "the recognizer heard \(source) as nothing")
            }
            // A second configuration of the same recognizer (a far heavier language weight) is another version:
            // compared with the first over the same sessions, with numbers scipy and numpy agree with.
            let other = try cli.run(["replay", "--all", "--drive", Self.recognizer + " lw=30", "--label", "lw30", "--jobs", "1"],
                                    limit: .seconds(600))
            try #require(other.status == 0, "\(other.stderr)")
            let compared = try cli.run(["compare", "--baseline", "default", "--candidate", "lw30", "--format", "json"])
            #expect(compared.status == 0 || compared.status == 4, "\(compared.stderr)")
            let document = try Self.json(compared.stdout)
            #expect((document["sessions"] as? [[String: Any]])?.count == fixtures.count)
            // Five sessions are too few for a verdict: the comparison says so and the gate does not fail on it.
            #expect(document["verdict"] as? String == "inconclusive" && compared.status == 0, "\(compared.stdout)")
            #expect(document["inconclusive_because"] as? String == "5 sessions compared; a verdict needs at least 6")
            if pythonCanImport("scipy, numpy") || ProcessInfo.processInfo.environment["CI"] != nil {
                _ = try CompareLabelsTests.check("check_comparison.py", compared.stdout, in: cli)
            }
        }
    }

    /// The real recognizer's two configurations driven over a condition suite made from two fixtures:
    /// the comparison breaks the errors down by condition, and noise at 0 dB costs the default
    /// configuration words that it hears in the clean copies.
    @Test(.timeLimit(.minutes(15)), .enabled(if: pythonTestEnabled("pocketsphinx, jiwer")))
    func twoRecognizerConfigurationsDrivenOverAConditionSuiteAreComparedConditionByCondition() async throws {
        try requirePython("pocketsphinx, jiwer")
        try await withCLI { cli in
            for fixture in ["short-dictation", "two-speakers"] { _ = try Self.record(fixture, in: cli) }
            let conditions = ["clean", "noise:white:0"]
            let derived = try cli.run(["derive", "--all", "--suite", "real", "--format", "json"] + conditions.flatMap { ["--condition", $0] })
            try #require(derived.status == 0, "\(derived.stderr)")
            for (label, settings) in [("default", ""), ("lw30", " lw=30")] {
                let drove = try cli.run(["replay", "--all", "--session-label", "suite=real", "--drive", Self.recognizer + settings,
                                         "--label", label, "--jobs", "2", "--quiet", "--timeout", "300"], limit: .seconds(600))
                try #require(drove.status == 0, "\(drove.stderr)")
            }
            let compared = try cli.run(["compare", "--baseline", "default", "--candidate", "lw30", "--format", "json"])
            #expect(compared.status == 0 || compared.status == 4, "\(compared.stderr)")
            let document = try Self.json(compared.stdout)
            #expect((document["sessions"] as? [[String: Any]])?.count == 4, "two sources under two conditions, and only those")
            let groups = try #require(document["by_condition"] as? [[String: Any]])
            #expect(groups.compactMap { $0["group"] as? String } == conditions.sorted())
            func rate(_ condition: String) -> Double {
                let group = groups.first { $0["group"] as? String == condition }
                return Double(group?["baseline_errors"] as? Int ?? 0) / Double(max(1, group?["reference_words"] as? Int ?? 1))
            }
            #expect(rate("noise:white:0") > rate("clean"), "noise at 0 dB: \(rate("noise:white:0")), clean: \(rate("clean"))")
            if pythonCanImport("scipy, numpy") || ProcessInfo.processInfo.environment["CI"] != nil {
                _ = try CompareLabelsTests.check("check_comparison.py", compared.stdout, in: cli)
            }
        }
    }

    static func file(_ object: [String: Any], in cli: CLIRunner) throws -> URL {
        let url = cli.directory.appendingPathComponent("case-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: object).write(to: url)
        return url
    }
}
