import ArgumentParser
import Foundation
import Output
import Projections
import SessionModel

struct ConsentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "consent",
        abstract: "Print a person's consent trail: every grant and revocation, in order.",
        discussion: """
            Takes the raw user id, hashes it with the store's key (the raw id is never stored) and prints \
            the person's consent trail from the persisted view, brought up to date first: one row per \
            grant or revocation with its status, type, method, policy version, session and times. \
            Field names: docs/OUTPUT.md.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The person's raw user id, as the client sent it in subject.", valueName: "user-id"))
    var userID: String

    @OptionGroup var output: OutputOptions<ListFormats>

    func run() async throws {
        try await reportingFailures {
            let log = try storeOptions.openLog()
            let runner = ProjectionRunner(log: log)
            try runner.catchUp()
            guard let subject = SubjectHash(bytes: log.identifierHash(userID)) else { return }
            let trail = try runner.consentTrail(of: subject)
            guard !trail.entries.isEmpty else {
                throw CommandFailure(.invalidData, "the store has no consent events for that user id")
            }
            let sink = try output.sink()
            var writer = RowWriter<ConsentRow>(format: output.format, sink: sink)
            for entry in trail.entries { try writer.write(ConsentRow(subject: subject, entry: entry)) }
            try writer.finish()
            try sink.close()
        }
    }
}
