import ArgumentParser
import EventLog
import Foundation
import Output

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Upgrade a store written by an older version of sessionstore to this version's format.",
        discussion: """
            Checks the key, then upgrades the store in place, one transaction per step, and says what it \
            did. A store that is current is left alone; a store of a newer format is refused. Old event \
            payloads need no migration: they are upcast whenever they are read.
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var progressOption: ProgressOption

    func run() async throws {
        try await reportingFailures {
            let steps = try progressOption.running("migrating the store") {
                try EventLog.migrate(at: storeOptions.store, key: try storeOptions.keySource(), options: StoreOptions.eventLogOptions)
            }
            if steps.isEmpty {
                Console.line("\(storeOptions.store) is already at the current format; nothing to do")
            } else {
                for step in steps { Console.line(step) }
            }
        }
    }
}
