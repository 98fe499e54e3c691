import ArgumentParser
import Foundation
import Output
import OutputRows
import Projections
import SessionLog
import SessionModel

struct TranscriptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcript",
        abstract: "Print a session's transcript: one committed segment per line.",
        discussion: """
            Committed segments in the order they were committed, each with its latest correction if it has \
            one, from the persisted transcript (brought up to date first). With --partials, the current \
            guesses of segments not committed yet follow, marked "…".

            --format json prints one document {session, segments, partials}, each segment with its times, \
            speaker, confidence, text, words and, when corrected, committed_text. --format ndjson and csv \
            print one line per segment with a kind column (committed or partial). Field names: docs/OUTPUT.md.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The session id.", valueName: "session"))
    var session: String

    @OptionGroup var output: OutputOptions<TextFormats>
    @OptionGroup var access: AccessOptions

    @Flag(help: "Also print the current partial guesses of segments not committed yet.")
    var partials = false

    func run() async throws {
        try await reportingFailures {
            let log = try storeOptions.openLog()
            let id = try SessionLookup.existing(session, in: log)
            // The persisted transcript, brought up to date: no need to read (and decrypt) the session's audio.
            let view = try await access.open(log).read(.transcript, of: [id]) {
                let runner = ProjectionRunner(log: log)
                try runner.catchUp()
                return try runner.transcript(of: id) ?? TranscriptView(session: id)
            }
            let sink = try output.sink()
            switch output.format {
            case .text:
                for segment in view.segments { sink.write(segment.currentText + "\n") }
                if partials { for partial in view.partials { sink.write("… " + partial.text + "\n") } }
            case .json:
                try sink.writeObject(TranscriptDocument(view: view, withPartials: partials))
            default:
                var writer = RowWriter<TranscriptLineRow>(format: output.format, sink: sink)
                for segment in view.segments { try writer.write(TranscriptLineRow(session: id, line: .committed(segment))) }
                if partials {
                    for partial in view.partials { try writer.write(TranscriptLineRow(session: id, line: .partial(partial))) }
                }
                try writer.finish()
            }
            try sink.close()
        }
    }
}
