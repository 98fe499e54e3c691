import ArgumentParser
import Compliance
import EventLog
import Foundation
import Output
import SessionLog
import SessionModel

struct AuditAccessCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "access",
        abstract: "List who read or exported session content: the store's access log, in log order.",
        discussion: """
            Every command that decrypts session content (transcript, events, audio, report, replay, \
            compare) appends an access.read event to the store's audit stream before it outputs anything: \
            who (--actor, default the operating-system user), why (--purpose), the command and the \
            sessions. Exports append export.performed, listed here as `export FORMAT`. Commands that \
            decrypt without printing content (verify, projections, stats, audit check) record nothing. A \
            store this user may only read records nothing and says so on standard error.

            One row per read: position, at, actor, purpose, command, sessions, subject_hash (for an \
            export of a person's data). --subject takes the raw user id (hashed, never stored or printed) \
            and lists the reads of that person's sessions; --session and --actor narrow the same way.

            --require-purpose yes|no stores the store's access policy (an access.policy_set event): with \
            yes, every read and export without --purpose is refused (exit 64) before anything is read.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .customLong("subject"), help: ArgumentHelp("The person's raw user id: reads of their sessions.", valueName: "user-id"))
    var subject: String?

    @Option(name: .customLong("session"), help: ArgumentHelp("A session id (or a unique prefix): reads of it.", valueName: "session"))
    var session: String?

    @Option(name: .customLong("actor"), help: ArgumentHelp("Only this reader's reads.", valueName: "name"))
    var actor: String?

    @Option(name: .customLong("require-purpose"), help: ArgumentHelp(
        "Store the access policy: yes (every read must give --purpose) or no. Prints the policy.", valueName: "yes|no"))
    var requirePurpose: String?

    @OptionGroup var output: OutputOptions<ListFormats>

    func validate() throws {
        if let requirePurpose {
            guard ["yes", "no"].contains(requirePurpose) else { throw ValidationError("--require-purpose takes yes or no.") }
            guard subject == nil, session == nil, actor == nil else {
                throw ValidationError("--require-purpose sets the policy; list the access log in another call.")
            }
        }
    }

    func run() async throws {
        try await reportingFailures {
            let log = try storeOptions.openLog()
            let access = AccessLog(log: log)
            let sink = try output.sink()
            if let requirePurpose {
                let policy = AccessPolicy(purposeRequired: requirePurpose == "yes")
                try await access.setPolicy(policy, at: log.now)
                try sink.writeRecord(AccessPolicyRow(policy: policy), format: output.format)
                try sink.close()
                return
            }
            let entries = try access.entries(subject: subject.map { log.subject($0) },
                                             session: try session.map { try SessionLookup.resolve($0, in: log) }, actor: actor)
            var writer = RowWriter<AccessRow>(format: output.format, sink: sink)
            for entry in entries { try writer.write(AccessRow(entry: entry)) }
            try writer.finish()
            try sink.close()
        }
    }
}
