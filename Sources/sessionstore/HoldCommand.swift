import ArgumentParser
import Compliance
import EventLog
import Foundation
import Output
import SessionLog
import SessionModel
import TimeCoding

struct HoldCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hold",
        abstract: "Legal holds: keep a person's or a session's data from retention and erasure during litigation.",
        discussion: """
            A hold is a hold.placed event in the store's audit stream (sealed with the audit key, covered by \
            the Merkle tree like consent, so `prove` gives an inclusion proof of it); `hold release` appends \
            hold.released. While a hold is in force, `retention apply` leaves the sessions it covers alone \
            (listing them as held) and `erase` refuses them with exit 6, naming the hold. A hold on a person \
            covers every session of theirs, including those recorded later. `audit check` reports a hold \
            still in force after its review date (hold_review_overdue). docs/COMPLIANCE.md, "Legal hold".
            """,
        subcommands: [HoldPlaceCommand.self, HoldReleaseCommand.self, HoldListCommand.self]
    )
}

struct HoldPlaceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "place",
        abstract: "Place a legal hold on a person (--subject) or on sessions (--session, repeatable).",
        discussion: """
            Prints the hold: its id (which `hold release` takes), what it covers and the position of its \
            event. The person's raw user id is hashed with the store's key, as everywhere; it is never stored.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .customLong("subject"), help: ArgumentHelp("The person's raw user id: every session of theirs, now and later.", valueName: "user-id"))
    var subject: String?

    @Option(name: .customLong("session"), help: ArgumentHelp("A session to hold: its id or a unique prefix of 8 characters or more.", valueName: "id"))
    var sessions: [String] = []

    @Option(name: .customLong("reason"), help: ArgumentHelp("Why: a matter or case reference (no personal data).", valueName: "text"))
    var reason: String

    @Option(name: .customLong("review-by"), help: ArgumentHelp(
        "Review the hold by this RFC 3339 UTC time; `audit check` reports it still in force after that.", valueName: "time"))
    var reviewBy: String?

    @Option(help: ArgumentHelp("Who places the hold, for the audit trail. Default: the operating-system user.", valueName: "name"))
    var actor: String?

    @OptionGroup var output: OutputOptions<RecordFormats>

    func validate() throws {
        if (subject == nil) == sessions.isEmpty { throw ValidationError("Name what to hold: --subject, or one or more --session (not both).") }
        if let reviewBy, RFC3339.milliseconds(reviewBy) == nil {
            throw ValidationError("--review-by \(reviewBy) is not an RFC 3339 UTC time such as 2027-06-01T00:00:00Z.")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let log = try storeOptions.openLog()
            let target: HoldTarget = if let subject {
                .subject(log.subject(subject))
            } else {
                .sessions(try sessions.map { try SessionLookup.resolve($0, in: log) })
            }
            let hold = try await LegalHolds(log: log).place(on: target, reason: reason, actor: actor ?? AccessOptions.operatingSystemUser,
                                                           reviewBy: reviewBy.flatMap(RFC3339.milliseconds),
                                                           at: log.now)
            let sink = try output.sink()
            try sink.writeRecord(HoldRow(hold: hold), format: output.format)
            try sink.close()
        }
    }
}

struct HoldReleaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "release",
        abstract: "Release a legal hold: retention and erasure apply to its sessions again.",
        discussion: "Takes the hold's id (from `hold place` or `hold list`) or a unique prefix of 8 characters or more."
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The hold's id, or a unique prefix of it.", valueName: "hold-id"))
    var hold: String

    @Option(name: .customLong("reason"), help: ArgumentHelp("Why it is released: the matter closed, say.", valueName: "text"))
    var reason: String

    @Option(help: ArgumentHelp("Who releases the hold, for the audit trail. Default: the operating-system user.", valueName: "name"))
    var actor: String?

    @OptionGroup var output: OutputOptions<RecordFormats>

    func run() async throws {
        try await reportingFailures {
            let log = try storeOptions.openLog()
            let holds = LegalHolds(log: log)
            let id = try Self.resolve(hold, among: try holds.all())
            let released = try await holds.release(id, reason: reason, actor: actor ?? AccessOptions.operatingSystemUser,
                                                   at: log.now)
            let sink = try output.sink()
            try sink.writeRecord(HoldRow(hold: released), format: output.format)
            try sink.close()
        }
    }

    /// The hold a full id or a unique prefix of at least 8 characters names.
    static func resolve(_ argument: String, among holds: [LegalHold]) throws -> UUID {
        if let id = UUID(uuidString: argument) { return id }
        let prefix = argument.lowercased()
        guard prefix.count >= SessionLookup.minimumPrefix else {
            throw CommandFailure(.usage, "\(argument) is not a hold id: give the whole id or a unique prefix of at least \(SessionLookup.minimumPrefix) characters")
        }
        let matches = holds.filter { $0.id.uuidString.lowercased().hasPrefix(prefix) }
        switch matches.count {
        case 0: throw CommandFailure(.invalidData, "the store has no legal hold whose id begins \(prefix)")
        case 1: return matches[0].id
        default: throw CommandFailure(.usage, "hold \(argument) is ambiguous: \(matches.count) hold ids begin with it; give more characters")
        }
    }
}

struct HoldListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the legal holds in force (with --all, released ones too), in the order placed."
    )

    @OptionGroup var storeOptions: StoreOptions

    @Flag(name: .customLong("all"), help: "Also list holds that were released.")
    var all = false

    @OptionGroup var output: OutputOptions<ListFormats>

    func run() async throws {
        try await reportingFailures {
            let holds = try LegalHolds(log: try storeOptions.openLog()).all().filter { all || $0.isOpen }
            let sink = try output.sink()
            var writer = RowWriter<HoldRow>(format: output.format, sink: sink)
            for hold in holds { try writer.write(HoldRow(hold: hold)) }
            try writer.finish()
            try sink.close()
        }
    }
}
