import ArgumentParser
import Foundation
import Output
import OutputRows
import Projections
import SessionModel

struct SessionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "List the sessions: status, times, segments, words, audio and consent.",
        discussion: """
            Reads the persisted session list, first folding in any events appended since it was last \
            brought up to date, ordered by start time. Times are the client's, in UTC (RFC 3339). In the \
            table and CSV, consent lists each type as granted (+) or revoked (-); in JSON it is an object \
            of type to true (granted) or false (revoked). Field names: docs/OUTPUT.md.
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @Option(name: .customLong("label"), help: ArgumentHelp(
        "Only sessions labelled NAME=VALUE (a derived session's condition=…, speaker=…); repeat to ask for several.",
        valueName: "name=value"))
    var labels: [String] = []
    @OptionGroup var output: OutputOptions<ListFormats>

    func run() async throws {
        try await reportingFailures {
            let wanted = try SessionLabels.filter(labels, option: "--label")
            let runner = ProjectionRunner(log: try storeOptions.openLog())
            try runner.catchUp()
            let sessions = try runner.sessions().filter { $0.hasLabels(wanted) }.sortedByStart()
            let sink = try output.sink()
            var writer = RowWriter<SessionRow>(format: output.format, sink: sink)
            for summary in sessions { try writer.write(SessionRow(summary: summary)) }
            try writer.finish()
            try sink.close()
        }
    }
}
