import ArgumentParser
import Foundation
import HexCoding
import Output
import Reports
import SessionLog
import TimeCoding

struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write one session as a self-contained HTML page: waveform, timeline, transcript, consent and violations.",
        discussion: """
            The page needs no network: styles, the SVG timeline and a few lines of script are inline, and \
            it opens from disk in any browser (attach it to a ticket). It shows the session's status, \
            times, subject hash, the replay digest and whether `replay --verify` passed, how many records \
            were read and authenticated; the recording's waveform; under it, on the same time axis, the \
            committed segments, the partial guesses each settled from, pauses, playback (play, pause, \
            seek), consent grants and revocations, and `audit check` violations in red; and the transcript \
            beside it, each segment linked to its place (a click plays the recording from there).

            The recording is embedded as FLAC, so THE FILE THEN HOLDS THE AUDIO IN CLEAR: treat it like \
            the recording itself, or pass --no-audio (the waveform stays). --redact replaces transcript \
            text with [REDACTED], as exports do. An erased or purged session gives a page without text \
            or audio that says so.

            The same store gives the same bytes: the page names no generation time unless --as-of sets \
            one (which is also the time `audit check` judges by).
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var access: AccessOptions

    @Argument(help: ArgumentHelp("The session id, or a unique prefix of at least 8 characters.", valueName: "session"))
    var session: String

    @Option(help: ArgumentHelp("Where to write the page (- for standard output).", valueName: "file.html"))
    var out: String

    @Flag(help: "Leave the recording out of the page (the waveform stays).")
    var noAudio = false

    @Flag(help: "Replace transcript text with [REDACTED].")
    var redact = false

    @Option(help: ArgumentHelp("The time the page is as of, RFC 3339 UTC (default: none named; retention is judged as of the store's last event).",
                               valueName: "time"))
    var asOf: String?

    func validate() throws {
        try validateAsOf(asOf)
    }

    func run() async throws {
        try await reportingFailures {
            let log = try storeOptions.openLog()
            let id = try SessionLookup.existing(session, in: log, allowErased: true)
            let options = SessionReport.Options(includeAudio: !noAudio, redact: redact, asOf: asOf.flatMap(RFC3339.milliseconds))
            let report = try await access.open(log).read(.report, of: [id]) { try await SessionReport.make(id, from: log, options: options) }
            let sink = try OutputSink.file(out == "-" ? nil : out)
            sink.write(SessionReportHTML.render(report))
            try sink.close()
            if out != "-" {
                Console.err("wrote the report of session \(Hex.uuid(id)) to \(out)\n")
            }
        }
    }
}
