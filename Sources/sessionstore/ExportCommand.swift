import ArgumentParser
import Compliance
import Exports
import EventLog
import Failures
import Foundation
import HexCoding
import Output
import SessionLog
import SessionModel
import TimeCoding

extension ExportFormat: ExpressibleByArgument {}

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export sessions' transcripts as JSON, CSV, WebVTT or SRT.",
        discussion: """
            Name sessions by id or by any unique prefix of at least 8 characters, or give --all, or \
            --subject USER_ID for every session of one person (the raw id, hashed with the store's key). The output \
            is the same bytes on every run for the same store; it is written to a temporary file and renamed, \
            so a failed export leaves no partial file.

            json: {"schema_version": 1, "sessions": [...]}, each session with its segments (and their word \
            timings), recordings and consent changes (docs/export.schema.json). csv: one row per committed \
            segment, columns session_id, segment_id, start_ms, end_ms, start, end (HH:MM:SS.mmm), speaker, \
            confidence, text; UTF-8 without a BOM. vtt and srt: one cue per committed segment, the speaker \
            as a voice tag (vtt) or a "Speaker: " prefix (srt); one session per file, so for several \
            sessions give --out a directory (an existing one, or a path ending in / that is then created): it \
            gets SESSION.vtt (or .srt) for each.

            --excel (csv) writes a UTF-8 BOM so that Excel reads the text right, and puts a ' before any \
            cell that begins with =, +, -, @, a tab or CR, which a spreadsheet would otherwise run as a \
            formula (CSV injection). Leave it off for programs: it changes those cells.

            --subject ID --bundle FILE.zip answers a data-access or portability request: a ZIP with \
            manifest.json (the subject hash, the time the data is as of, every file with its SHA-256), \
            consent.json (the person's whole consent trail), each session as JSON and WebVTT, and each \
            recording as FLAC with the recorded samples. The ZIP then holds the audio and the words in \
            clear: hand it over as such. --as-of sets the time in the manifest (default: the latest event \
            in the bundle), so the same store gives the same ZIP.

            Each export is recorded in the store's audit stream as an export.performed event: who (--actor, \
            else the operating-system user), which sessions, which format.
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var progressOption: ProgressOption

    @Argument(help: ArgumentHelp("Session ids, or unique prefixes of at least 8 characters.", valueName: "session"))
    var sessions: [String] = []

    @Flag(help: "Export every session of the store, ordered by start time.")
    var all = false

    @Option(help: ArgumentHelp("Export every session of this person (their raw user id).", valueName: "user-id"))
    var subject: String?

    @Option(help: ArgumentHelp("With --subject: write a ZIP of the person's sessions, recordings and consent trail.",
                               valueName: "file.zip"))
    var bundle: String?

    @Option(help: ArgumentHelp("With --bundle: the time the data is as of (RFC 3339, UTC).", valueName: "time"))
    var asOf: String?

    @Option(help: ArgumentHelp("json (default), csv, vtt or srt.", valueName: "format"))
    var format: ExportFormat = .json

    @Option(help: ArgumentHelp("Write to this file (or into this directory, a file per session; a path ending in / is created) "
                               + "instead of standard output.", valueName: "path"))
    var out: String?

    @Flag(help: "csv: also every superseded partial revision, with an is_final column.")
    var partials = false

    @Flag(help: "csv: a UTF-8 BOM for Excel, and cells starting with = + - @ tab or CR defanged with a leading '.")
    var excel = false

    @Flag(help: "Replace transcript text with [REDACTED], keeping times, ids and hashes (to share for debugging).")
    var redact = false

    @OptionGroup var access: AccessOptions

    func validate() throws {
        let selections = (sessions.isEmpty ? 0 : 1) + (all ? 1 : 0) + (subject == nil ? 0 : 1)
        if selections != 1 { throw ValidationError("Name the sessions to export, or give --all, or --subject (one of them).") }
        if bundle != nil, subject == nil { throw ValidationError("--bundle needs --subject.") }
        if asOf != nil, bundle == nil { throw ValidationError("--as-of is for --bundle.") }
        try validateAsOf(asOf)
        if (partials || excel), format != .csv { throw ValidationError("--partials and --excel are for --format csv.") }
    }

    func run() async throws {
        try await reportingFailures {
            let log = try storeOptions.openLog()
            let reads = try access.open(log)
            let exporter = try Exporter(log: log)
            let person = subject.map { log.subject($0) }
            if let person, let bundle {
                let subjectBundle = SubjectBundle(exporter: exporter, subject: person)
                try await reads.read(.export(format: "bundle", subject: person), of: subjectBundle.sessions) {
                    try subjectBundle.write(to: bundle, asOf: asOf.flatMap(RFC3339.milliseconds))
                }
                try log.close()
                return
            }
            let chosen = all ? exporter.allSessions : try person.map { try exporter.subjectSessions($0) } ?? exporter.resolve(sessions)
            // Where the export goes is opened first: an unwritable place is refused before anything is recorded or read.
            let directory = try out.map(Self.isDirectoryOutput) ?? false
            let single = directory ? nil : try OutputSink.file(out)
            try await reads.read(.export(format: format.rawValue, subject: person), of: chosen) {
                let options = ExportOptions(partials: partials, excel: excel, redact: redact)
                let progress = progressOption.start("exporting", unit: "sessions")
                defer { progress.finish() }
                if let out, directory {
                    for (index, session) in chosen.enumerated() {
                        let path = (out as NSString).appendingPathComponent("\(Hex.uuid(session)).\(format.fileExtension)")
                        try write([session], with: exporter, options: options, to: try OutputSink.file(path))
                        progress.update(index + 1, of: chosen.count)
                    }
                } else if let single {
                    // Standard output gets no progress line between its rows; a file does.
                    try write(chosen, with: exporter, options: options, to: single, progress: out == nil ? nil : progress)
                }
            }
            try log.close()
        }
    }

    /// Whether `out` names a directory to fill with a file per session: an existing directory, or a path
    /// ending in `/`, which is then created (with its parents).
    static func isDirectoryOutput(_ out: String) throws -> Bool {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: out, isDirectory: &isDirectory) { return isDirectory.boolValue }
        guard out.hasSuffix("/") else { return false }
        do {
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure(.usage, "cannot create the directory \(out): \(fileErrorReason(error))")
        }
        return true
    }

    private func write(_ sessions: [UUID], with exporter: Exporter, options: ExportOptions, to sink: OutputSink,
                       progress: Progress? = nil) throws {
        try exporter.export(sessions, as: format, options: options, to: sink, progress: progress.map { line in { line.update($0, of: $1) } })
        try sink.close()
    }
}
