import ArgumentParser
import Foundation
import Projections

struct ProjectionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "projections",
        abstract: "Maintain the persisted views (the session list).",
        subcommands: [Rebuild.self]
    )

    struct Rebuild: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Drop the persisted views and fold the whole log again, with progress on stderr."
        )

        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            try await reportingFailures {
                let clock = ContinuousClock()
                let started = clock.now
                let showProgress = isatty(STDERR_FILENO) == 1
                let folded = try ProjectionRunner(log: try storeOptions.openLog()).rebuild { position, total in
                    if showProgress { FileHandle.standardError.write(Data("\rrebuilding: \(position) of \(total) events".utf8)) }
                }
                if showProgress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
                let seconds = Double((clock.now - started).components.attoseconds) / 1e18 + Double((clock.now - started).components.seconds)
                print("rebuilt the session list from \(folded) events in \(String(format: "%.2f", seconds)) s")
            }
        }
    }
}
