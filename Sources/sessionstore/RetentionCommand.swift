import ArgumentParser
import Compliance
import EventLog
import Foundation
import Output
import SessionModel
import TimeCoding

struct RetentionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retention",
        abstract: "Keep sessions for a set time: store the policy, show it, apply it.",
        subcommands: [RetentionSetCommand.self, RetentionShowCommand.self, RetentionApplyCommand.self]
    )
}

/// `--max-age 90d`: a duration option.
private func duration(_ text: String, _ option: String) throws -> Int64 {
    guard let milliseconds = DurationText.milliseconds(text) else {
        throw ValidationError("\(option) \(text) is not a duration such as 90d, 12h, 30m, 45s or 500ms.")
    }
    return milliseconds
}

struct RetentionSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Store the retention policy: how long after a session ends it is kept.",
        discussion: """
            Appends a retention.policy_set event to the store's audit stream; the latest one is the policy. \
            `retention apply` purges by it and `audit check` reports sessions kept longer \
            (retention_exceeded).
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .customLong("max-age"), help: ArgumentHelp("Keep sessions this long after they end: 90d, 12h, 30m, 45s, 500ms.", valueName: "duration"))
    var maxAge: String

    @Option(name: .customLong("partials-max-age"), help: ArgumentHelp(
        "Also drop the transcript partials of sessions ended this long ago (keeping their commits, audio and consent).",
        valueName: "duration"))
    var partialsMaxAge: String?

    @OptionGroup var output: OutputOptions<RecordFormats>

    func validate() throws {
        _ = try duration(maxAge, "--max-age")
        if let partialsMaxAge { _ = try duration(partialsMaxAge, "--partials-max-age") }
    }

    func run() async throws {
        try await reportingFailures {
            let log = try storeOptions.openLog()
            let policy = RetentionPolicy(maxAge: try duration(maxAge, "--max-age"),
                                         partialsMaxAge: try partialsMaxAge.map { try duration($0, "--partials-max-age") })
            try await Retention(log: log).setPolicy(policy, at: log.now)
            let sink = try output.sink()
            try sink.writeRecord(PolicyRow(policy: policy), format: output.format)
            try sink.close()
        }
    }
}

struct RetentionShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Print the retention policy in force (empty fields when none is set).")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions<RecordFormats>

    func run() async throws {
        try await reportingFailures {
            let policy = try Retention(log: try storeOptions.openLog()).policy()
            let sink = try output.sink()
            try sink.writeRecord(PolicyRow(policy: policy), format: output.format)
            try sink.close()
        }
    }
}

struct RetentionApplyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Purge every session that ended longer ago than the retention period.",
        discussion: """
            Sessions that ended before the cutoff (the --as-of time, default the store time of the last \
            event, minus --max-age, default the stored policy's) are crypto-shredded as in `erase`: their \
            data keys are destroyed, so nothing of them can be read again, and the store file is \
            compacted. A retention.purged event names the sessions and the cutoff (no personal data). \
            Their consent trail stays. With a period for partials (--partials-max-age, or the policy's), \
            the sessions that ended before that shorter cutoff lose their transcript partials only (their \
            discardable key is destroyed; commits, audio and consent stay). A session a legal hold covers \
            (`hold place`) is left alone and listed as held, with the holds. Prints one row per session: \
            session, status (purged, partials discarded, or held), ended_at, holds.

            --dry-run lists what would go and changes nothing. Reads no clock.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .customLong("max-age"), help: ArgumentHelp("Use this period instead of the stored policy's: 90d, 12h, …", valueName: "duration"))
    var maxAge: String?

    @Option(name: .customLong("partials-max-age"), help: ArgumentHelp(
        "Use this period for transcript partials instead of the stored policy's.", valueName: "duration"))
    var partialsMaxAge: String?

    @Option(name: .customLong("as-of"), help: ArgumentHelp("Apply as of this RFC 3339 UTC time, e.g. 2026-06-01T00:00:00Z.", valueName: "time"))
    var asOf: String?

    @Flag(name: .customLong("dry-run"), help: "List the sessions that would be purged; change nothing.")
    var dryRun = false

    @OptionGroup var wait: WaitOption
    @OptionGroup var progressOption: ProgressOption

    @OptionGroup var output: OutputOptions<ListFormats>

    func validate() throws {
        if let maxAge { _ = try duration(maxAge, "--max-age") }
        if let partialsMaxAge { _ = try duration(partialsMaxAge, "--partials-max-age") }
        try validateAsOf(asOf)
    }

    func run() async throws {
        try await reportingFailures {
            let progress = progressOption.start("purging")
            defer { progress.finish() }
            let maxAge = try maxAge.map { try duration($0, "--max-age") }
            let partialsMaxAge = try partialsMaxAge.map { try duration($0, "--partials-max-age") }
            let asOf = asOf.flatMap(RFC3339.milliseconds)
            let plan: Retention.Plan
            if dryRun {
                let log = try storeOptions.openLog()
                defer { try? log.close() }
                plan = try Retention(log: log).plan(maxAge: maxAge, partialsMaxAge: partialsMaxAge, asOf: asOf)
            } else {
                plan = try await Retention.purge(in: try storeOptions.reference(), maxAge: maxAge, partialsMaxAge: partialsMaxAge, asOf: asOf,
                                                 at: EventLogOptions.systemClock(), waitingUpTo: wait.duration,
                                                 stage: { progress.stage($0) }).plan
            }
            let sink = try output.sink()
            var writer = RowWriter<PurgeRow>(format: output.format, sink: sink)
            for summary in plan.sessions { try writer.write(PurgeRow(summary: summary, dryRun: dryRun)) }
            for summary in plan.partialsSessions { try writer.write(PurgeRow(summary: summary, dryRun: dryRun, partialsOnly: true)) }
            for held in plan.held {
                try writer.write(PurgeRow(summary: held.summary, dryRun: dryRun, partialsOnly: held.partialsOnly, holds: held.holds))
            }
            try writer.finish()
            try sink.close()
        }
    }
}
