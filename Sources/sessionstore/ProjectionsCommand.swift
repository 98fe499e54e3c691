import ArgumentParser
import Foundation
import Output
import Projections

struct ProjectionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "projections",
        abstract: "Maintain the persisted views (the session list).",
        subcommands: [Rebuild.self]
    )

    struct Rebuild: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Drop the persisted views and fold the whole log again (with a progress line on a terminal)."
        )

        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var progressOption: ProgressOption

        func run() async throws {
            try await reportingFailures {
                let clock = ContinuousClock()
                let started = clock.now
                let progress = progressOption.start("rebuilding the views", unit: "events")
                let folded = try ProjectionRunner(log: try storeOptions.openLog()).rebuild { progress.update($0, of: $1) }
                progress.finish()
                let seconds = Double((clock.now - started).components.attoseconds) / 1e18 + Double((clock.now - started).components.seconds)
                Console.line("rebuilt the session list from \(folded) events in \(String(format: "%.2f", seconds)) s")
            }
        }
    }
}
