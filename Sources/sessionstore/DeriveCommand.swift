import ArgumentParser
import Foundation
import Output
import OutputRows
import Projections
import Replay
import SessionLog
import SessionModel
import TimeCoding

struct DeriveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "derive",
        abstract: "Make a condition suite or a long session: new sessions from stored ones, their audio changed or joined.",
        discussion: """
            For every source session and every --condition, stores a new fixture session whose audio is the \
            source's changed as the condition says and whose transcript truth is the source's committed \
            transcript: clean; noise:white|pink|babble:SNR (dB over the speech; babble is the other sources' \
            voices); gain:DB; pauses:MS (longer silences between segments); overlap:DB (another source's \
            speaker over every other segment); clip:DB (below the peak); rate:HZ. Each derived session \
            belongs to its source's subject and carries the labels condition, speaker, derived_from and, \
            with --suite, suite; `sessions --label` and `replay --drive --all --session-label` select them. \
            The same sources, conditions and seed give the same sessions, ids included: deriving again \
            stores nothing new. A source whose subject has not granted audio_recording and transcription \
            consent is refused. Definitions: docs/REPLAY.md ("Condition suites").

            With --long DURATION instead of --condition, stores one long session of the sources' segments one \
            after another, each with the pause before it (or --pause MS of silence), in rounds over the sources \
            in a seeded order, up to DURATION (such as 1h): its truth is every segment's text at its shifted \
            time, its condition label long:DURATION. The sources must belong to one subject, whose session it \
            is. Definitions: docs/REPLAY.md ("Long sessions").
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("Source sessions: ids or unique prefixes of at least 8 characters.", valueName: "session"))
    var sessions: [String] = []

    @Flag(help: "Derive from every session that is not a run, not derived and has a recording and a transcript.")
    var all = false

    @Option(name: .customLong("condition"), help: ArgumentHelp("A condition, such as noise:white:10 or gain:-20; repeat for several.",
                                                              valueName: "condition"))
    var conditions: [String] = []

    @Option(help: ArgumentHelp("Make one long session of the sources' segments, up to this length: 1h, 30m, 90s.", valueName: "duration"))
    var long: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("With --long, the silence before every segment, in milliseconds (by default, each source's own pause).",
                               valueName: "ms"))
    var pause: Int?

    // `.unconditional`: `--seed -1` is refused as a seed (not a whole number from 0), not as a missing value.
    @Option(parsing: .unconditional, help: "The seed of the noise, the voices picked and the sessions' partials.")
    var seed: UInt64 = 1

    @Option(help: ArgumentHelp("The suite's name, kept as every derived session's suite label.", valueName: "name"))
    var suite: String?

    @Option(name: .customLong("label"), help: ArgumentHelp("One more label for every derived session; repeat for several.",
                                                          valueName: "name=value"))
    var labels: [String] = []

    @OptionGroup var output: OutputOptions<ListFormats>

    func validate() throws {
        if all, !sessions.isEmpty { throw ValidationError("give source sessions or --all, not both") }
        if !all, sessions.isEmpty { throw ValidationError("give the source sessions, or --all") }
        if let long {
            if !conditions.isEmpty { throw ValidationError("give --condition or --long, not both") }
            if suite != nil { throw ValidationError("--suite names a condition suite; a --long session takes --label instead") }
            if DurationText.milliseconds(long) == nil {
                throw ValidationError("--long \(long) is not a duration such as 1h, 30m, 90s or 1500ms.")
            }
        } else {
            if pause != nil { throw ValidationError("--pause goes with --long") }
            if conditions.isEmpty { throw ValidationError("give at least one --condition, such as --condition noise:white:10, or --long 1h") }
        }
    }

    func run() async throws {
        try await reportingFailures {
            let extra = try SessionLabels.parse(labels, option: "--label")
            let log = try storeOptions.openLog()
            let sources: [UUID]
            if all {
                let runner = ProjectionRunner(log: log)
                try runner.catchUp()
                sources = ConditionSuite.sources(among: try runner.sessions())
            } else {
                sources = try sessions.map { try SessionLookup.existing($0, in: log) }
            }
            let sink = try output.sink()
            var writer = RowWriter<DerivedSessionRow>(format: output.format, sink: sink)
            let derived: [ConditionSuite.Derived]
            if let long, let milliseconds = DurationText.milliseconds(long) {
                let options = LongSession.Options(targetMilliseconds: Int(clamping: milliseconds), pauseMilliseconds: pause, seed: seed,
                                                  labels: extra)
                derived = [try await LongSession.derive(from: sources, in: log, options: options)]
            } else {
                let options = ConditionSuite.Options(conditions: try conditions.map { try Condition($0) }, seed: seed, suite: suite,
                                                     labels: extra)
                derived = try await ConditionSuite.derive(from: sources, in: log, options: options)
            }
            for one in derived { try writer.write(DerivedSessionRow(derived: one)) }
            try writer.finish()
            try sink.close()
            try log.close()
            let appended = derived.count { $0.appended > 0 }
            let kind = long == nil ? "under \(conditions.count) conditions" : "as one long session"
            Console.err("derived \(derived.count) sessions from \(sources.count) sources \(kind); "
                        + "\(appended) stored now, \(derived.count - appended) stored already\n")
        }
    }
}
