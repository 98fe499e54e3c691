import ArgumentParser
import Foundation
import Projections
import SessionModel

struct ConsentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "consent",
        abstract: "Print a person's consent trail: every grant and revocation, in order.",
        discussion: """
            Takes the raw user id, hashes it with the store's key (the raw id is never stored) and prints \
            the person's consent trail from the persisted view, brought up to date first: one line per \
            grant (+) or revocation (-) with its time, type, method, policy version and session.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, json }

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The person's raw user id, as the client sent it in subject.", valueName: "user-id"))
    var userID: String

    @Option(help: "Output format: table or json.")
    var format: Format = .table

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
            let rows = trail.entries.map { entry -> [String: Any] in
                var row: [String: Any] = ["granted": entry.granted, "at": RFC3339.string(entry.occurredAt),
                                          "recorded_at": RFC3339.string(entry.recordedAt), "consent_type": entry.consentType,
                                          "method": entry.method, "session": entry.session.uuidString.lowercased()]
                if let policy = entry.policyVersion { row["policy_version"] = policy }
                return row
            }
            switch format {
            case .json:
                print(try jsonLine(["subject_hash": subject.description, "entries": rows]))
            case .table:
                print("subject \(subject)")
                for entry in trail.entries {
                    print("\(entry.granted ? "+" : "-") \(RFC3339.string(entry.occurredAt))  \(entry.consentType)  \(entry.method)  "
                          + "\(entry.policyVersion ?? "-")  \(entry.session.uuidString.lowercased())")
                }
            }
        }
    }
}
