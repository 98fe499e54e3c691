import ArgumentParser

/// `replay --drive` and what goes with it (docs/REPLAY.md).
struct DriveOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Replay into this command (split into words as a shell would, run without one) and store what it produces as a run.",
        valueName: "command"))
    var drive: String?

    @Flag(help: "With --drive: send the session's own transcript events too.")
    var withTranscript = false

    @Option(help: ArgumentHelp("With --drive: append the command's standard error to this file instead of this one's.",
                               valueName: "file"))
    var targetLog: String?

    @Option(help: ArgumentHelp(
        "With --drive: how long the command may leave an event untaken, or stay silent after its input ends "
            + "(default: 30 plus the session's length at --speed).",
        valueName: "seconds"))
    var timeout: Double?

    @Option(help: ArgumentHelp("With --drive: a label for the run, such as the system's version.", valueName: "label"))
    var label: String?

    @Flag(help: "With --drive: do not store the run.")
    var noStore = false

    @Flag(help: "With --drive: compare the run with the session (exit 4 when the check fails).")
    var expect = false

    @Flag(help: "With --drive: every session that is not itself a run (or those of --locale and --session-label).")
    var all = false

    @Option(help: ArgumentHelp("With --all: only sessions in this locale (as recorded, e.g. en).", valueName: "locale"))
    var locale: String?

    @Option(name: .customLong("session-label"), help: ArgumentHelp(
        "With --all: only sessions labelled NAME=VALUE (a condition suite's suite=…, condition=…); repeat for several.",
        valueName: "name=value"))
    var sessionLabels: [String] = []

    @Option(help: ArgumentHelp("With --drive and several sessions: how many to drive at a time (default 2).", valueName: "n"))
    var jobs = 2

    @OptionGroup var check: CheckOptions

    func validate() throws {
        guard drive != nil else {
            for (given, name) in [(withTranscript, "--with-transcript"), (targetLog != nil, "--target-log"), (label != nil, "--label"),
                                  (noStore, "--no-store"), (expect, "--expect"), (all, "--all"), (locale != nil, "--locale"),
                                  (!sessionLabels.isEmpty, "--session-label")]
                where given {
                throw ValidationError("\(name) goes with --drive COMMAND")
            }
            if let name = check.given.first { throw ValidationError("\(name) goes with --drive COMMAND --expect") }
            return
        }
        if let timeout, !(timeout.isFinite && timeout > 0) {
            throw ValidationError("--timeout \(timeout) is not a positive number of seconds")
        }
        guard jobs >= 1 else { throw ValidationError("--jobs \(jobs) is not a positive number") }
        if locale != nil, !all { throw ValidationError("--locale goes with --all") }
        if !sessionLabels.isEmpty, !all { throw ValidationError("--session-label goes with --all") }
        if !expect, let name = check.given.first { throw ValidationError("\(name) goes with --expect: without it the run is not checked") }
    }
}
