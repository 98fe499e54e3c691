import EventLog
import Foundation
import HexCoding
import Migrations
import Output
import Projections
import SessionLog
import SessionModel

/// Exports sessions' transcripts as JSON, CSV, WebVTT or SRT, streaming, from the persisted views.
///
/// The same store gives the same bytes on every run: nothing in an export depends on the clock.
///
/// ```swift
/// let exporter = try Exporter(log: log)                 // brings the views up to date
/// let sessions = try exporter.resolve(["3f2c8a1e"])     // ids or unique prefixes of 8+ characters
/// let sink = try OutputSink.file("transcripts.csv")
/// try exporter.export(sessions, as: .csv, to: sink)
/// try sink.close()
/// ```
///
/// A face exports inside ``Compliance/ReadAccess``'s `read(.export(format:subject:), of:)`, which records the
/// export in the audit stream first.
public struct Exporter {
    /// The store exported from.
    public let log: EventLog
    private let runner: ProjectionRunner
    /// Every session, ordered by start time then id: the export order.
    private let summaries: [SessionSummary]
    private let summaryByID: [UUID: SessionSummary]

    /// An exporter over `log`, whose persisted views it first brings up to date.
    public init(log: EventLog) throws {
        self.log = log
        runner = ProjectionRunner(log: log)
        try runner.catchUp()
        summaries = try runner.sessions().sortedByStart()
        summaryByID = Dictionary(uniqueKeysWithValues: summaries.map { ($0.session, $0) })
    }

    /// An exporter of `sessions` alone, in the order given, from views `runner` has brought up to date
    /// already: for a caller that keeps the views current itself and exports a few sessions (the
    /// server), without a catch-up and a read of the whole session list per export.
    public init(log: EventLog, upToDate runner: ProjectionRunner, sessions: [SessionSummary]) {
        self.log = log
        self.runner = runner
        summaries = sessions
        summaryByID = Dictionary(sessions.map { ($0.session, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Every session of the store, in export order.
    public var allSessions: [UUID] { summaries.map(\.session) }

    /// The sessions of `subject`, in export order.
    public func sessions(of subject: SubjectHash) -> [UUID] {
        summaries.filter { $0.subject == subject }.map(\.session)
    }

    /// The sessions of `subject`, in export order; an error when the store holds none.
    public func subjectSessions(_ subject: SubjectHash) throws(ExportError) -> [UUID] {
        let found = sessions(of: subject)
        guard !found.isEmpty else { throw ExportError(.unknownSubject, "the store has no sessions for that user id") }
        return found
    }

    /// Every grant and revocation of `subject`, in log order.
    public func consentTrail(of subject: SubjectHash) throws -> [ConsentTrail.Entry] {
        try runner.consentTrail(of: subject).entries
    }

    /// Every event of `session`, decoded, in order (its audio included).
    public func events(of session: UUID) throws -> [RecordedSessionEvent] {
        let codec = SessionMigrations.codec
        return try log.readStream(SessionStreams.session(session), skippingErased: true) { try codec.decode($0) }
    }

    /// The sessions named by `arguments` (whole ids or unique prefixes, as ``SessionLookup`` resolves them),
    /// in export order, each once.
    /// - Throws: ``SessionLookupError`` naming the first argument that is no session id, or begins no session
    ///   id or several; ``ExportError`` for a session this exporter does not hold.
    public func resolve(_ arguments: [String]) throws -> [UUID] {
        var chosen = Set<UUID>()
        for argument in arguments {
            let session = try SessionLookup.resolve(argument, in: log)
            guard summaryByID[session] != nil else { throw ExportError(.unknownSession, "the store has no session \(argument)") }
            chosen.insert(session)
        }
        return summaries.map(\.session).filter(chosen.contains)
    }

    /// Writes `sessions` (in the order given) as `format` to `sink`, one session at a time, telling
    /// `progress` how many are written of how many after each.
    /// - Throws: ``ExportError`` for several sessions in one subtitle file; ``OutputError`` when
    ///   writing fails; `EventLogError` when the store cannot be read.
    public func export(_ sessions: [UUID], as format: ExportFormat, options: ExportOptions = ExportOptions(),
                       to sink: OutputSink, progress: ((Int, Int) -> Void)? = nil) throws {
        switch format {
        case .json: try exportJSON(sessions, options: options, to: sink, progress: progress)
        case .csv: try exportCSV(sessions, options: options, to: sink, progress: progress)
        case .vtt, .srt:
            guard sessions.count == 1, let session = sessions.first else {
                throw ExportError(.invalidRequest, "a \(format.rawValue.uppercased()) file holds one session, not "
                                  + "\(sessions.count): name one, or give a directory as the output for a file per session")
            }
            let exported = try load(session)
            var writer = SubtitleWriter(format: format, options: options, sink: sink)
            if exported.summary.isShredded {
                writer.note("This session was \(exported.summary.status.rawValue): its transcript and audio cannot be read.")
            }
            for segment in exported.transcript.segments { try writer.write(segment) }
        }
        try sink.flush()
    }

    /// The session-list row of `session`, nil for an unknown one.
    public func summary(of session: UUID) -> SessionSummary? { summaryByID[session] }

    /// What an export holds of `session`.
    public func load(_ session: UUID) throws -> ExportedSession {
        guard let summary = summaryByID[session] else {
            throw ExportError(.unknownSession, "the store has no session \(Hex.uuid(session))")
        }
        let transcript = try runner.transcript(of: session) ?? TranscriptView(session: session)
        // A purged session's row no longer names its subject; its consent is found by session then.
        let consent = try summary.subject.map { try runner.consentTrail(of: $0).entries.filter { $0.session == session } }
            ?? runner.consentEntries(ofSession: session).map(\.entry)
        return ExportedSession(summary: summary, transcript: transcript, consent: consent)
    }

    private func exportJSON(_ sessions: [UUID], options: ExportOptions, to sink: OutputSink,
                            progress: ((Int, Int) -> Void)?) throws {
        // The generator has no character JSON must escape.
        sink.write(#"{"schema_version":1,"generator":""# + SessionStoreRelease.generator + #"","sessions":["#)
        for (index, session) in sessions.enumerated() {
            sink.write(index == 0 ? "\n" : ",\n")
            try sink.writeObject(ExportSessionRow(session: try load(session), options: options), lineEnd: false)
            progress?(index + 1, sessions.count)
        }
        sink.write(sessions.isEmpty ? "]}\n" : "\n]}\n")
    }

    private func exportCSV(_ sessions: [UUID], options: ExportOptions, to sink: OutputSink,
                           progress: ((Int, Int) -> Void)?) throws {
        if options.excel { sink.write("\u{FEFF}") }
        if options.partials {
            var writer = RowWriter<ExportCSVRevisionRow>(format: .csv, sink: sink)
            for (index, session) in sessions.enumerated() {
                for (row, isFinal) in try revisionRows(of: try load(session), options: options) {
                    try writer.write(ExportCSVRevisionRow(row: row, isFinal: isFinal))
                }
                progress?(index + 1, sessions.count)
            }
            try writer.finish()
        } else {
            var writer = RowWriter<ExportCSVRow>(format: .csv, sink: sink)
            for (index, session) in sessions.enumerated() {
                let exported = try load(session)
                for segment in Self.bySegmentStart(exported.transcript.segments) {
                    try writer.write(csvRow(exported.session, segment, options: options))
                }
                progress?(index + 1, sessions.count)
            }
            try writer.finish()
        }
    }

    private func csvRow(_ session: UUID, _ segment: TranscriptView.Segment, options: ExportOptions) -> ExportCSVRow {
        ExportCSVRow(session: session, segment: segment.id, startMilliseconds: segment.startMilliseconds,
                     endMilliseconds: segment.endMilliseconds, speaker: segment.speaker, confidence: segment.confidence,
                     text: options.text(segment.currentText), excel: options.excel)
    }

    /// Committed segments by start time, ties in commit order.
    private static func bySegmentStart(_ segments: [TranscriptView.Segment]) -> [TranscriptView.Segment] {
        segments.enumerated().sorted { ($0.element.startMilliseconds, $0.offset) < ($1.element.startMilliseconds, $1.offset) }
            .map(\.element)
    }

    /// Each segment's partial revisions in the order recorded, then its committed row; segments by start
    /// time, then the order they were first seen.
    private func revisionRows(of exported: ExportedSession, options: ExportOptions) throws -> [(ExportCSVRow, Bool)] {
        struct Group { var start: UInt64; var order: Int; var rows: [(ExportCSVRow, Bool)] }
        var groups: [String: Group] = [:]
        func add(_ segment: String, start: UInt64, _ row: (ExportCSVRow, Bool)) {
            let order = groups.count
            groups[segment, default: Group(start: start, order: order, rows: [])].rows.append(row)
        }
        for partial in try PartialRevisions.load(exported.session, from: log) {
            add(partial.segment, start: partial.startMilliseconds, (ExportCSVRow(
                session: exported.session, segment: partial.segment, startMilliseconds: partial.startMilliseconds,
                endMilliseconds: partial.endMilliseconds, speaker: nil, confidence: nil, text: options.text(partial.text),
                excel: options.excel), false))
        }
        for segment in exported.transcript.segments {
            add(segment.id, start: segment.startMilliseconds, (csvRow(exported.session, segment, options: options), true))
            groups[segment.id]?.start = segment.startMilliseconds
        }
        return groups.values.sorted { ($0.start, $0.order) < ($1.start, $1.order) }.flatMap(\.rows)
    }
}
