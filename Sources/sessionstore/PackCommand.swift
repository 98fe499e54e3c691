import ArgumentParser
import Compliance
import EventLog
import Exports
import Foundation
import Output
import Projections
import SessionLog
import SessionModel

struct PackCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pack",
        abstract: "Write sessions as a fixture pack an app's test target bundles: WAVs, expectations and a manifest.",
        discussion: """
            For each session: SESSION.wav, its recording as 16-bit PCM at the session's rate, bit-identical to what \
            the audio command writes; and SESSION.expectation.json, the committed transcript, each segment's text \
            and times, the key phrases in order (by default the first three words of each segment of three or \
            more), the tolerance (punctuation ignored, a tenth of the words in edits unless --max-word-edits) and \
            the session's labels (docs/APP-TESTING.md, docs/fixture-expectation.schema.json). manifest.json lists \
            them with each file's SHA-256. The same sessions give the same bytes.

            The sessions are named, or chosen by --label (and --suite, the label suite) or --all, leaving out runs \
            and erased sessions. --out is a new or empty directory; the pack is written beside it and moved in \
            whole, so a pack that fails leaves nothing. A session without exactly one recording is refused \
            (exit 65). The pack is recorded in the access log as an export (export pack).
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The sessions (ids, or unique prefixes of 8 or more hex digits).", valueName: "session"))
    var sessions: [String] = []

    @Option(name: .customLong("label"), help: ArgumentHelp("Only sessions labelled NAME=VALUE (repeat for several).", valueName: "name=value"))
    var labels: [String] = []

    @Option(help: ArgumentHelp("Only sessions of this suite (the label suite=NAME).", valueName: "name"))
    var suite: String?

    @Flag(help: "Every session that is not a run and not erased.")
    var all = false

    @Option(help: ArgumentHelp("The directory to write: new or empty.", valueName: "directory"))
    var out: String

    @Option(help: ArgumentHelp("Word edits each expectation allows. Default: a tenth of its transcript's words, at least 1.", valueName: "count"))
    var maxWordEdits: Int?

    @OptionGroup var access: AccessOptions

    func validate() throws {
        let chosen = [!sessions.isEmpty, !labels.isEmpty || suite != nil, all].filter { $0 }.count
        guard chosen == 1 else { throw ValidationError("name the sessions, or choose them with --label or --suite, or give --all: one of these") }
        if let maxWordEdits, maxWordEdits < 0 { throw ValidationError("--max-word-edits must be 0 or more") }
    }

    func run() async throws {
        try await reportingFailures {
            let log = try storeOptions.openLog()
            let ids = try chosenSessions(log)
            guard !ids.isEmpty else {
                throw CommandFailure(.invalidData, "no session that is not a run and not erased has the labels \((labels + (suite.map { ["suite=\($0)"] } ?? [])).joined(separator: ", "))")
            }
            let manifest = try await access.open(log).read(.export(format: "pack", subject: nil), of: ids) {
                try FixturePack.write(ids, from: log, to: URL(fileURLWithPath: out), maxWordEdits: maxWordEdits)
            }
            Console.line("wrote a pack of \(manifest.sessions.count) \(manifest.sessions.count == 1 ? "session" : "sessions") to \(out) "
                         + "(\(manifest.files.count + 1) files, \(manifest.files.reduce(0) { $0 + $1.bytes }) bytes)")
        }
    }

    private func chosenSessions(_ log: EventLog) throws -> [UUID] {
        if !sessions.isEmpty { return try sessions.map { try SessionLookup.existing($0, in: log) } }
        let wanted = try SessionLabels.filter(labels + (suite.map { ["suite=\($0)"] } ?? []), option: "--label")
        let runner = ProjectionRunner(log: log)
        try runner.catchUp()
        return try runner.sessions().filter { $0.runOf == nil && !$0.isShredded && $0.hasLabels(wanted) }.map { $0.session }
    }
}
