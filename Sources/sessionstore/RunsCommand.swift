import ArgumentParser
import Foundation
import Output
import OutputRows
import Replay

struct RunsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runs",
        abstract: "Each run label's word error rate and commit latency, in the order the labels were first driven.",
        discussion: """
            For every label given to `replay --drive … --label`, over the latest run of each source session \
            it drove: the sessions, the pooled word error rate with its errors and words, the commit latency \
            p50 and p95, and when its first and last drive started. Labels that drove different sessions \
            are not comparable by these numbers alone; `compare --baseline A --candidate B` compares two \
            over the sessions they share, with significance (docs/REPLAY.md).
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var access: AccessOptions
    @OptionGroup var output: OutputOptions<ListFormats>

    func run() async throws {
        try await reportingFailures {
            let log = try storeOptions.openLog()
            let trend = try await access.open(log).read(.runs, { try await LabelTrend.load(from: log) }, sessions: \.sessionsRead)
            let sink = try output.sink()
            var writer = RowWriter<LabelTrendRow>(format: output.format, sink: sink)
            for entry in trend.entries { try writer.write(LabelTrendRow(entry: entry)) }
            try writer.finish()
            try sink.close()
        }
    }
}
