import Audio
import Foundation
import TestSupport
import Testing

/// Fixture sessions through the built binary: record → transcript → audio out, bit-identical.
@Suite struct RecordAndAudioCommandsTests {
    static func record(_ cli: CLIRunner, _ name: String, extra: [String] = []) async throws -> CLIRunner.Outcome {
        try await cli.runInProcess(["record", "--audio", RepositoryFixtures.audioPath(name),
                     "--script", RepositoryFixtures.audioPath(name, "json")] + extra)
    }

    static func sessionID(in output: String) -> String {
        String(output.split(separator: " ")[2])  // "recorded session <id> from …"
    }

    @Test func aRecordedFixtureReadsBackAsItsScriptAndItsAudioBitIdentical() async throws {
        try await withCLI { cli in
            try await cli.runInProcess(["init"])
            let recorded = try await Self.record(cli, "two-speakers")
            #expect(recorded.status == 0, "\(recorded.stderr)")
            let session = Self.sessionID(in: recorded.stdout)
            let again = try await Self.record(cli, "two-speakers")
            #expect(again.stdout.contains("0 events appended"))

            let transcript = try await cli.runInProcess(["transcript", session])
            let script = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: RepositoryFixtures.audioPath("two-speakers", "json")))) as! [String: Any]
            let texts = (script["segments"] as! [[String: Any]]).map { $0["text"] as! String }
            #expect(transcript.stdout == texts.joined(separator: "\n") + "\n")

            let original = try AudioFile.read(RepositoryFixtures.audioPath("two-speakers"))
            for ext in ["wav", "flac"] {
                let out = cli.directory.appendingPathComponent("out.\(ext)").path
                let written = try await cli.runInProcess(["audio", session, "--out", out])
                #expect(written.status == 0, "\(written.stderr)")
                #expect(try AudioFile.read(out).samples == original.samples)
            }
        }
    }

    @Test func anotherSeedRecordsAnotherSessionAndOtherAudioIsConverted() async throws {
        try await withCLI { cli in
            try await cli.runInProcess(["init"])
            let first = Self.sessionID(in: try await Self.record(cli, "short-dictation").stdout)
            let second = try await Self.record(cli, "short-dictation", extra: ["--seed", "2"])
            #expect(Self.sessionID(in: second.stdout) != first)
            let ogg = try await cli.runInProcess(["record", "--audio", RepositoryFixtures.audioPath("short-dictation", "ogg"),
                                   "--script", RepositoryFixtures.audioPath("short-dictation", "json"),
                                   "--session", "0b7e6a34-1111-4222-8333-444455556666", "--start-at", "2026-03-01T08:00:00Z"])
            #expect(ogg.status == 0, "\(ogg.stderr)")
            #expect(ogg.stdout.hasPrefix("recorded session 0b7e6a34-1111-4222-8333-444455556666 "))
            let sessions = try await cli.runInProcess(["sessions", "--format", "csv"])
            #expect(sessions.stdout.contains("0b7e6a34-1111-4222-8333-444455556666,ended,2026-03-01T08:00:00.000Z"))
        }
    }

    @Test func anotherSessionFormatIsRecordedAndWrittenBackInIt() async throws {
        try await withCLI { cli in
            try await cli.runInProcess(["init"])
            let recorded = try await Self.record(cli, "short-dictation", extra: ["--sample-rate", "8000", "--channels", "2"])
            #expect(recorded.status == 0, "\(recorded.stderr)")
            #expect(recorded.stderr.contains("converted from 16000 Hz, mono to 8000 Hz, 2 channels, 16-bit"))
            let out = cli.directory.appendingPathComponent("stereo.wav").path
            #expect(try await cli.runInProcess(["audio", Self.sessionID(in: recorded.stdout), "--out", out]).status == 0)
            let written = try AudioFile.read(out, as: AudioFormat(sampleRate: 8000, channels: 2))
            #expect(written.sourceFormat == AudioFormat(sampleRate: 8000, channels: 2))
            #expect(abs(written.frames - 64_120) <= 1)  // 8.015 s at 8 kHz
            #expect(try await cli.runInProcess(["record", "--audio", RepositoryFixtures.audioPath("short-dictation"), "--script",
                                 RepositoryFixtures.audioPath("short-dictation", "json"), "--channels", "9"]).status == 64)
        }
    }

    @Test func corruptAudioOrABadScriptIsRefusedWithExit65AndNothingAppended() async throws {
        try await withCLI { cli in
            try await cli.runInProcess(["init"])
            let corrupt = cli.directory.appendingPathComponent("corrupt.flac")
            let whole = try Data(contentsOf: URL(fileURLWithPath: RepositoryFixtures.audioPath("short-dictation")))
            try whole.prefix(whole.count / 3).write(to: corrupt)
            let refused = try await cli.runInProcess(["record", "--audio", corrupt.path, "--script", RepositoryFixtures.audioPath("short-dictation", "json")])
            #expect(refused.status == 65)
            #expect(refused.stderr.contains(corrupt.path))

            let script = cli.directory.appendingPathComponent("script.json")
            try Data(#"{"segments":[{"text":"late","start_ms":0,"end_ms":999999}]}"#.utf8).write(to: script)
            let tooLong = try await cli.runInProcess(["record", "--audio", RepositoryFixtures.audioPath("short-dictation"), "--script", script.path])
            #expect(tooLong.status == 65)
            #expect(tooLong.stderr.contains("after the audio"))

            let stats = try await cli.runInProcess(["stats", "--format", "json"])
            let object = try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any]
            #expect(object?["events"] as? Int == 0)
        }
    }

    @Test func audioOfAnUnknownSessionOrToAnUnknownFormatIsRefused() async throws {
        try await withCLI { cli in
            try await cli.runInProcess(["init"])
            let session = Self.sessionID(in: try await Self.record(cli, "short-dictation").stdout)
            let mp3 = try await cli.runInProcess(["audio", session, "--out", "out.mp3"])
            #expect(mp3.status == 64)
            let missing = try await cli.runInProcess(["audio", "0b7e6a34-1111-4222-8333-444455556666", "--out", cli.path("out.wav")])
            #expect(missing.status == 65)
            #expect(missing.stderr.contains("no session"))
            let wrongRecording = try await cli.runInProcess(["audio", session, "--recording", "nope", "--out", cli.path("out.wav")])
            #expect(wrongRecording.status == 65)
            #expect(wrongRecording.stderr.contains("recording-1"))
        }
    }

    @Test func aMissingChunkIsReportedNeverFilled() async throws {
        try await withCLI { cli in
            try await cli.runInProcess(["init"])
            let id = "5d5a3c5e-1a62-45eb-8cb1-e1306743bf2c"
            let file = [0, 2, 3, 5].map { index in
                #"{"type":"recording.chunk","session":"\#(id)","at":"2026-11-21T10:00:01Z","recording":"r","index":\#(index),"pcm":"AAABAAIAAwA="}"#
            }
            let lines = [#"{"type":"session.started","session":"\#(id)","at":"2026-11-21T10:00:00Z","subject":"s","locale":"en"}"#,
                         #"{"type":"recording.started","session":"\#(id)","at":"2026-11-21T10:00:00Z","recording":"r","sample_rate":16000,"channels":1}"#]
                + file
            #expect(try await cli.runInProcess(["ingest", "-"], input: Data(lines.joined(separator: "\n").utf8)).status == 0)
            let out = cli.directory.appendingPathComponent("gap.wav").path
            let gap = try await cli.runInProcess(["audio", id, "--out", out])
            #expect(gap.status == 65)
            #expect(gap.stderr.contains("chunk indices 1, 4 missing"))
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }
}
