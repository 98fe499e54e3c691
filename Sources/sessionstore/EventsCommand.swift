import ArgumentParser
import EventRows
import Foundation
import Ingest
import Output
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
            let id = try SessionLookup.existing(session, in: log)
            let sink = try output.sink()
            try await access.open(log).read(.events, of: [id]) {
                var writer = RowWriter<EventRow>(format: output.format, sink: sink)
                let encoder = RowEncoder<EventRow>(format: output.format)
                try SessionEventRows.forEachBatch(of: id, in: log, withAudio: withAudio, render: { encoder.encode($0) }) { lines in
                    for line in lines { try writer.write(line) }
                }
                try writer.finish()
            }
            try sink.close()
        }
    }
}
