import ArgumentParser
import Foundation
import Output
import Projections
import SessionModel

struct ConsentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "consent",
        abstract: "Print a person's consent trail (the same as `audit consent --subject`).",
        discussion: """
            Takes the raw user id, hashes it with the store's key (the raw id is never stored) and prints \
            the person's consent trail from the persisted view, brought up to date first: one row per \
            grant or revocation with its status, type, method, policy version, session, times and position. \
            An alias of `audit consent --subject USER_ID`, kept for scripts written before it. \
            Field names: docs/OUTPUT.md.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The person's raw user id, as the client sent it in subject.", valueName: "user-id"))
    var userID: String

    @OptionGroup var output: OutputOptions<ListFormats>

    func run() async throws {
        try await reportingFailures {
            try AuditConsentCommand.printTrail(storeOptions: storeOptions, subject: userID, session: nil, output: output)
        }
    }
}
