import ArgumentParser
import Compliance
import EventLog
import Foundation
import Output
import OutputRows
import Projections
import SessionLog
import SessionModel
import TimeCoding

struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Prove consent, find compliance violations, and see who read what.",
        subcommands: [AuditConsentCommand.self, AuditCheckCommand.self, AuditAccessCommand.self, AuditIntegrityCommand.self]
    )
}

struct AuditConsentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "consent",
        abstract: "Print a consent trail: every grant and revocation of a person, or given in a session, in log order.",
        discussion: """
            With --subject, takes the raw user id, hashes it with the store's key (the raw id is never \
            stored or printed) and prints that person's trail; with --session, every grant and revocation \
            given in that session. One row per grant or revocation: subject_hash, session, consent_type, \
            status (granted or revoked), method, policy_version, occurred_at, recorded_at and position (the \
            global position of the proof: the event's copy in the subject's consent stream). The trail is \
            sealed with the store's audit key, so it stays readable after the person's data is erased \
            and after retention purges their sessions. Field names: docs/OUTPUT.md.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .customLong("subject"), help: ArgumentHelp("The person's raw user id, as the client sent it in subject.", valueName: "user-id"))
    var subject: String?

    @Option(name: .customLong("session"), help: ArgumentHelp("A session id: the grants and revocations given in it.", valueName: "session"))
    var session: String?

    @OptionGroup var output: OutputOptions<ListFormats>

    func validate() throws {
        guard (subject == nil) != (session == nil) else { throw ValidationError("Give either --subject or --session.") }
    }

    func run() async throws {
        try await reportingFailures {
            try Self.printTrail(storeOptions: storeOptions, subject: subject, session: session, output: output)
        }
    }

    /// The one implementation of `audit consent` and its alias `consent USER_ID`.
    static func printTrail(storeOptions: StoreOptions, subject: String?, session: String?, output: OutputOptions<ListFormats>) throws {
        let log = try storeOptions.openLog()
        let runner = ProjectionRunner(log: log)
        try runner.catchUp()
        let rows: [ConsentRow]
        if let subject {
            let hash = log.subject(subject)
            rows = try runner.consentTrail(of: hash).entries.map { ConsentRow(subject: hash, entry: $0) }
            guard !rows.isEmpty else { throw CommandFailure(.invalidData, "the store has no consent events for that user id") }
        } else {
            let id = try SessionLookup.existing(session ?? "", in: log, allowErased: true)
            rows = try runner.consentEntries(ofSession: id).map { ConsentRow(subject: $0.subject, entry: $0.entry) }
        }
        let sink = try output.sink()
        var writer = RowWriter<ConsentRow>(format: output.format, sink: sink)
        for row in rows { try writer.write(row) }
        try writer.finish()
        try sink.close()
    }
}

struct AuditCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the whole log against the compliance rules; exit 3 when anything breaks one.",
        discussion: """
            Reads the log once, in order, and checks every event against each rule (docs/COMPLIANCE.md \
            gives each rule and why): recording_without_consent, transcript_without_consent, \
            playback_without_consent, event_after_revocation, consent_granted_after_use, \
            retention_exceeded, erased_data_readable. One row per violation (per session and rule: the \
            first event that breaks it, with how many followed): rule, session, position, occurred_at, \
            detail. Exits 3 when it finds any, 0 when none.

            Reads no clock: retention is judged as of --as-of (an RFC 3339 UTC time) or the store time of \
            the last event.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .customLong("as-of"), help: ArgumentHelp("Judge retention as of this RFC 3339 UTC time, e.g. 2026-06-01T00:00:00Z.", valueName: "time"))
    var asOf: String?

    @OptionGroup var output: OutputOptions<ListFormats>

    func validate() throws {
        try validateAsOf(asOf)
    }

    func run() async throws {
        try await reportingFailures {
            let log = try storeOptions.openLog()
            let report = try ViolationCheck(log: log).run(asOf: asOf.flatMap(RFC3339.milliseconds))
            let sink = try output.sink()
            var writer = RowWriter<ViolationRow>(format: output.format, sink: sink)
            for violation in report.violations { try writer.write(ViolationRow(violation: violation)) }
            try writer.finish()
            try sink.close()
            if !report.violations.isEmpty {
                let count = report.violations.count
                throw CommandFailure(.complianceViolations, "\(count) violation\(count == 1 ? "" : "s") found in \(report.eventsRead) events")
            }
        }
    }
}
