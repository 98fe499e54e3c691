import Audio
import Foundation
import Testing
import TestSupport

/// `sessionstore derive --long`: one long fixture session made of stored sessions' segments, their
/// audio and truth shifted together, deterministic from a seed, refused where it cannot be made.
@Suite struct LongSessionTests {
    /// The built binary, off the test pool's threads: making and replaying an hour of audio takes seconds of CPU that the
    /// other suites' tasks must not wait behind.
    static func run(_ cli: CLIRunner, _ arguments: [String]) async throws -> CLIRunner.Outcome {
        try await offThePool { try cli.run(arguments) }
    }

    static func record(_ names: [String], in cli: CLIRunner, extra: [String] = []) async throws -> [String] {
        try await offThePool { try names.map { try DriveCommandTests.record($0, in: cli, extra: extra) } }
    }

    static func segments(_ cli: CLIRunner, _ session: String) async throws -> [[String: Any]] {
        let transcript = try await run(cli, ["transcript", session, "--format", "json"])
        try #require(transcript.status == 0, "\(transcript.stderr)")
        return try #require(try DriveCommandTests.json(transcript.stdout)["segments"] as? [[String: Any]])
    }

    static func samples(_ cli: CLIRunner, _ session: String, _ name: String) async throws -> [Int16] {
        let wav = cli.path(name)
        let exported = try await run(cli, ["audio", session, "--out", wav])
        try #require(exported.status == 0, "\(exported.stderr)")
        return try AudioFile.read(wav).samples
    }

    @Test(.timeLimit(.minutes(10)))
    func aLongSessionIsItsSourcesSegmentsOneAfterAnotherWithTheirAudioAndTimesShiftedTogether() async throws {
        try await withCLI { cli in
            let sources = try await Self.record(["short-dictation", "two-speakers", "paused-resumed"], in: cli)
            let made = try await Self.run(cli, ["derive"] + sources + ["--long", "3m", "--seed", "7", "--label", "purpose=scrollback", "--format", "json"])
            try #require(made.status == 0, "\(made.stderr)")
            let row = try #require(try DeriveCommandTests.rows(made.stdout).first)
            let long = try #require(row["session"] as? String)
            let labels = try #require(row["labels"] as? [String: String])
            #expect(row["condition"] as? String == "long:3m")
            #expect(labels["condition"] == "long:3m" && labels["purpose"] == "scrollback" && labels["speaker"] == "awb+slt", "\(labels)")
            #expect(sources.contains(labels["derived_from"] ?? ""), "\(labels)")

            // Every segment is a source's, in rounds that go through every source's segments in order.
            var truth: [String: [String]] = [:]
            for source in sources { truth[source] = try await Self.segments(cli, source).compactMap { $0["text"] as? String } }
            let texts = try await Self.segments(cli, long).compactMap { $0["text"] as? String }
            let oneRound = truth.values.reduce(0) { $0 + $1.count }
            #expect(texts.count > oneRound, "3 minutes hold more than one round of \(oneRound) segments: \(texts.count)")
            #expect(Set(texts).isSubset(of: Set(truth.values.joined())))
            #expect(Array(texts.prefix(oneRound)).sorted() == Array(truth.values.joined()).sorted(), "the first round holds every segment once")

            // Its audio is the pieces' audio: it starts with its first source's recording up to that source's first segment's end.
            let audio = try await Self.samples(cli, long, "long.wav")
            #expect(audio.count <= 3 * 60 * 16_000 && audio.count > 2 * 60 * 16_000, "\(audio.count) samples")
            let firstSource = try #require(sources.first { truth[$0]?.first == texts.first })
            let sourceAudio = try await Self.samples(cli, firstSource, "source.wav")
            let firstEnd = try #require(try await Self.segments(cli, firstSource).first?["end_ms"] as? Int)
            let piece = firstEnd * 16
            #expect(audio.prefix(piece).elementsEqual(sourceAudio.prefix(piece)), "the first piece is the source's audio, sample for sample")
            let timed = try await Self.segments(cli, long)
            let starts = timed.compactMap { $0["start_ms"] as? Int }
            #expect(starts == starts.sorted() && (starts.last ?? 0) < audio.count / 16, "segment times run in order inside the audio")

            // The same sources and seed: the same session, stored already; another seed, another order.
            let again = try DeriveCommandTests.rows(try await Self.run(cli, ["derive"] + sources + ["--long", "3m", "--seed", "7", "--label", "purpose=scrollback",
                                                                                       "--format", "json"]).stdout)
            #expect(again.first?["session"] as? String == long && again.first?["appended"] as? Int == 0)
            let other = try DeriveCommandTests.rows(try await Self.run(cli, ["derive"] + sources + ["--long", "3m", "--seed", "8", "--format", "json"]).stdout)
            #expect(other.first?["session"] as? String != long)

            // A set pause: every segment follows the one before it after exactly that silence.
            let paused = try DeriveCommandTests.rows(try await Self.run(cli, ["derive", sources[0], "--long", "1m", "--pause", "1500", "--format", "json"]).stdout)
            let pausedID = try #require(paused.first?["session"] as? String)
            let gaps = try await Self.segments(cli, pausedID).compactMap { row -> (Int, Int)? in
                guard let start = row["start_ms"] as? Int, let end = row["end_ms"] as? Int else { return nil }
                return (start, end)
            }
            #expect(gaps.first?.0 == 1500)
            #expect(zip(gaps, gaps.dropFirst()).allSatisfy { $1.0 - $0.1 == 1500 }, "\(gaps)")
            #expect(try DeriveCommandTests.rows(try await Self.run(cli, ["sessions", "--label", "condition=long:1m:pause:1500", "--format", "json"]).stdout).count == 1)
        }
    }

    @Test(.timeLimit(.minutes(15)))
    func aOneHourLongSessionReplaysWithTheSameDigestTwice() async throws {
        try await withCLI { cli in
            let sources = try await Self.record(["short-dictation", "two-speakers"], in: cli)
            let made = try await Self.run(cli, ["derive"] + sources + ["--long", "1h", "--format", "json"])
            try #require(made.status == 0, "\(made.stderr)")
            let row = try #require(try DeriveCommandTests.rows(made.stdout).first)
            let long = try #require(row["session"] as? String)
            let milliseconds = try #require(row["audio_ms"] as? Int)
            #expect((3_500_000...3_600_000).contains(milliseconds), "\(milliseconds) ms of audio")
            var digests: [String?] = []
            for _ in 0..<2 {
                let replayed = try await Self.run(cli, ["replay", long, "--digest"])
                try #require(replayed.status == 0, "\(replayed.stderr)")
                digests.append(replayed.stdout.split(separator: "\n").last.map(String.init))
            }
            #expect(digests[0]?.count == 64 && digests[0] == digests[1], "\(digests)")
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func whatCannotBeMadeLongIsRefusedInOneSentenceAndNothingIsStored() async throws {
        try await withCLI { cli in
            let source = try await Self.record(["short-dictation"], in: cli)[0]
            let stranger = try await Self.record(["two-speakers"], in: cli, extra: ["--subject", "someone-else"])[0]
            let revoked = try await Self.record(["paused-resumed"], in: cli, extra: ["--subject", "revokes"])[0]
            let revocation = #"{"type":"consent.revoked","session":"\#(revoked)","at":"2026-01-05T09:10:00Z","subject":"revokes","consent_type":"transcription","method":"settings_screen"}"#
            try #require(try await cli.runInProcess(["ingest", "-"], input: Data((revocation + "\n").utf8)).status == 0)
            let before = try await offThePool { try DriveCommandTests.sessionIDs(cli) }
            let cases: [([String], Int32, String)] = [
                (["derive", source, stranger, "--long", "10m"], 64, "belong to different subjects; a long session is one subject's"),
                (["derive", revoked, "--long", "10m"], 64, "its subject has not granted transcription consent"),
                (["derive", source, "--long", "1s"], 64, "is shorter than its first segment with its pause"),
                (["derive", source, "--long", "2d"], 64, "is out of range; give 1 ms to 24 h"),
                (["derive", source, "--long", "soon"], 64, "--long soon is not a duration such as 1h"),
                (["derive", source, "--long", "1m", "--condition", "clean"], 64, "give --condition or --long, not both"),
                (["derive", source, "--condition", "clean", "--pause", "100"], 64, "--pause goes with --long"),
                (["derive", source, "--long", "1m", "--pause", "-5"], 64, "the pause of -5 ms is out of range"),
                (["derive", source, "--long", "1m", "--label", "condition=x"], 64, "label condition is set by derive itself"),
            ]
            for (arguments, status, message) in cases {
                let refused = try await cli.runInProcess(arguments)
                #expect(refused.status == status, "\(arguments): \(refused.stderr)")
                #expect(refused.stderr.contains(message), "\(arguments): \(refused.stderr)")
                #expect(refused.stderr.split(separator: "\n").first?.contains(message) == true, "the first line says it: \(refused.stderr)")
            }
            #expect(try await offThePool { try DriveCommandTests.sessionIDs(cli) } == before, "nothing stored")
        }
    }
}
