import ArgumentParser
import Audio
import EventLog
import Foundation
import HexCoding
import Ingest
import Output
import Replay
import SessionLog
import SessionModel
import TimeCoding

struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a fixture session from an audio file and its timed script, deterministically.",
        discussion: """
            Builds a complete dictation session without a microphone: session started, consent granted \
            for audio_recording and transcription, the recording in chunks of 100 ms of audio, partial \
            transcripts that grow word by word (with seeded mishearings that the next partial corrects), \
            a commit at the end of each script segment, pauses from the script, the recording stopped, \
            one playback and the session ended. Times follow the audio from --start-at.

            The same audio, script, options and seed always give the same events and ids: recording a \
            fixture again adds nothing. Audio in WAV, FLAC or OGG/Vorbis at any rate is converted to \
            the session's format, 16 kHz mono 16-bit unless --sample-rate and --channels say otherwise \
            (said on stderr). The script is JSON: {"segments": [{"text", "speaker", \
            "start_ms", "end_ms"}], "pauses": [{"start_ms", "end_ms"}]}; see Fixtures/audio/*.json.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: ArgumentHelp("The audio file (WAV, FLAC or OGG).", valueName: "file"))
    var audio: String

    @Option(help: ArgumentHelp("The timed script (JSON).", valueName: "file"))
    var script: String

    @Option(help: ArgumentHelp("The session id (default: derived from the audio, the script, the seed and the other options).", valueName: "uuid"))
    var session: String?

    @Option(help: ArgumentHelp("The raw subject id; the store keeps only its keyed hash.", valueName: "id"))
    var subject = "fixture-subject"

    @Option(help: "The seed of partial revisions and commit latencies.")
    var seed: UInt64 = 1

    @Option(help: ArgumentHelp("When the recording starts (RFC 3339 UTC).", valueName: "time"))
    var startAt = "2026-01-05T09:00:00Z"

    @Option(help: ArgumentHelp("The session's sample rate; other audio is resampled to it.", valueName: "hz"))
    var sampleRate = 16_000

    @Option(help: ArgumentHelp("The session's channels; other audio is mixed to them.", valueName: "count"))
    var channels = 1

    func run() async throws {
        try await reportingFailures {
            var options = SessionRecorder.Options(subject: subject, seed: seed)
            if let session {
                guard let id = UUID(uuidString: session) else { throw CommandFailure(.usage, "--session \(session) is not a UUID") }
                options.session = id
            }
            guard let start = RFC3339.milliseconds(startAt) else {
                throw CommandFailure(.usage, "--start-at \(startAt) is not an RFC 3339 UTC time such as 2026-01-05T09:00:00Z")
            }
            options.startAt = start
            guard (1000...384_000).contains(sampleRate), (1...8).contains(channels) else {
                throw CommandFailure(.usage, "--sample-rate must be 1000–384000 and --channels 1–8")
            }
            let decoded = try AudioFile.read(audio, as: AudioFormat(sampleRate: sampleRate, channels: channels))
            let timedScript = try FixtureScript.load(script)
            if let conversion = decoded.conversion { Console.err("note: \(audio) \(conversion)\n") }

            let log = try storeOptions.openLog()
            let recorder = SessionRecorder(audio: decoded, script: timedScript, options: options) { raw in
                log.subject(raw)
            }
            let events: [SessionEvent]
            do throws(FixtureError) { events = try recorder.events() } catch {
                throw FixtureError(error.code, "\(script): \(error.message)", path: script, field: error.field)
            }
            let report = try await appending(from: audio) { try await SessionIngest(log: log).ingest(events: events) }
            try log.close()
            let seconds = Double(recorder.audioMilliseconds) / 1000
            Console.line("recorded session \(Hex.uuid(recorder.session)) from \(audio) (\(String(format: "%.1f", seconds)) s of audio): "
                  + "\(report.appended) events appended" + (report.duplicates > 0 ? ", \(report.duplicates) already stored" : ""))
        }
    }
}
