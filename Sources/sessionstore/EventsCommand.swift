import ArgumentParser
import Foundation
import Ingest
import Migrations
import Output
import SessionAudio
import SessionLog
import SessionModel

struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Print a session's events, decrypted, as NDJSON in the ingest shape.",
        discussion: """
            One JSON object per event, in the session's order, with the ingest fields (docs/INGEST.md) plus \
            occurred_at, recorded_at, stream_number and position. Subjects appear as subject_hash: raw ids are \
            never stored. Audio chunks show their frame count instead of their samples unless --with-audio \
            is given. --format json prints one array; csv one line per event with every field as a column. \
            The session is read and printed in batches, so memory stays flat for a session of any length. \
            Field names: docs/OUTPUT.md.
            """
    )

    /// Events read, decrypted and printed at a time.
    static let batchSize = 4096

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The session id.", valueName: "session"))
    var session: String

    @OptionGroup var output: OutputOptions<LineFormats>

    @Flag(help: "Include the PCM of audio chunks (base64).")
    var withAudio = false

    @OptionGroup var access: AccessOptions

    func run() async throws {
        try await reportingFailures {
            let log = try storeOptions.openLog()
            let id = try existingSession(session, in: log)
            try await access.recordRead("events", of: [id], in: log)
            let stream = SessionStreams.session(id)
            let sink = try output.sink()
            var writer = RowWriter<EventRow>(format: output.format, sink: sink)
            let encoder = RowEncoder<EventRow>(format: output.format)
            let codec = SessionMigrations.codec, withAudio = self.withAudio
            let total = try log.streamMetadata(stream)?.version ?? 0
            var next: UInt64 = 0
            while next < total {
                // Decoded, FLAC-decoded with --with-audio, and formatted on the reading threads; events
                // discarded by retention (their key destroyed) are left out.
                let batch = try log.readStream(stream, from: next, maxCount: Self.batchSize, skippingErased: true) { recorded in
                    let event = try codec.decode(recorded)
                    var row = EventRow(recorded: event)
                    if withAudio, case .recordingChunk(let chunk) = event.event.payload {
                        row.pcm = try chunk.pcm()
                    }
                    return encoder.encode(row)
                }
                for line in batch { try writer.write(line) }
                next += UInt64(Self.batchSize)
            }
            try writer.finish()
            try sink.close()
        }
    }
}
