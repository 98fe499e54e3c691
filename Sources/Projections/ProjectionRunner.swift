import EventLog
import Foundation
import Migrations
import SessionModel

/// Keeps the persisted views up to date (the session list, the transcripts and every subject's
/// consent trail): folds
/// the events after their checkpoints, a batch at a time, writing each view's rows and its new
/// checkpoint in one transaction (exactly-once across crashes). `rebuild` starts again from 0.
public struct ProjectionRunner: Sendable {
    public static let sessionsView = "sessions"
    public static let consentView = "consent-trail"
    public static let transcriptsView = "transcripts"
    static let views = [sessionsView, transcriptsView, consentView]
    public static let batchSize = 16_384

    public let log: EventLog
    public let codec: SessionEventCodec

    public init(log: EventLog, codec: SessionEventCodec = SessionMigrations.codec) {
        self.log = log
        self.codec = codec
    }

    /// Folds every event not folded yet into the session list, the transcripts and the consent
    /// trails; returns how many events were read. `progress` gets (position, log size).
    @discardableResult
    public func catchUp(progress: ((UInt64, UInt64) -> Void)? = nil) throws -> UInt64 {
        var checkpoints: [String: UInt64] = [:]
        for view in Self.views { checkpoints[view] = try log.readView(view) { try $0.checkpoint() } ?? 0 }
        var position = checkpoints.values.min() ?? 0
        let end = try log.eventCount()
        var read: UInt64 = 0
        let codec = self.codec
        while true {
            let events = try log.readAll(from: position, maxCount: Self.batchSize) { try codec.decode($0) }
            guard let last = events.last else { break }
            let next = last.position + 1
            // Each view folds the events past its own checkpoint (they differ only after a crash between
            // views). One pass finds the sessions whose rows are needed, one pass folds: no copies of the batch.
            let (sessionsFrom, transcriptsFrom, trailsFrom) =
                (checkpoints[Self.sessionsView]!, checkpoints[Self.transcriptsView]!, checkpoints[Self.consentView]!)
            var summarySessions: Set<UUID> = []
            var transcriptSessions: Set<UUID> = []
            for event in events where !event.isCopy {
                if event.position >= sessionsFrom { summarySessions.insert(event.event.session) }
                if event.position >= transcriptsFrom, Self.transcriptTypes.contains(event.event.type) {
                    transcriptSessions.insert(event.event.session)
                }
            }
            var summaries = try loadRows(Self.sessionsView, for: summarySessions, decode: SessionSummary.init(session:row:))
            var transcripts = try loadRows(Self.transcriptsView, for: transcriptSessions, decode: TranscriptView.init(session:row:))
            var trailRows: [([UInt8], [UInt8])] = []
            for event in events {
                if event.isCopy {  // consent copies in subjects' trails feed the trails, not the session list
                    if event.position >= trailsFrom, let (subject, entry) = ConsentTrail.entry(from: event) {
                        trailRows.append((subject.bytes + event.position.bigEndianBytes, entry.rowBytes))
                    }
                    continue
                }
                let session = event.event.session
                if event.position >= sessionsFrom {
                    summaries[session, default: SessionSummary(session: session)].apply(event.event)
                }
                if event.position >= transcriptsFrom, Self.transcriptTypes.contains(event.event.type) {
                    transcripts[session, default: TranscriptView(session: session)].apply(event.event)
                }
            }
            try write(Self.sessionsView, from: sessionsFrom, to: next, rows: summaries.map { ($0.key.wireBytes, $0.value.rowBytes) })
            try write(Self.transcriptsView, from: transcriptsFrom, to: next,
                      rows: transcripts.map { ($0.key.wireBytes, $0.value.rowBytes) })
            try write(Self.consentView, from: trailsFrom, to: next, rows: trailRows)

            for view in Self.views { checkpoints[view] = max(checkpoints[view]!, next) }
            read += UInt64(events.count)
            position = next
            progress?(position, end)
        }
        return read
    }

    static let transcriptTypes: Set<EventType> = [.transcriptPartial, .transcriptCommitted, .transcriptCorrected]

    /// The stored rows of these sessions.
    private func loadRows<Row>(_ view: String, for sessions: Set<UUID>,
                               decode: (UUID, [UInt8]) throws -> Row) throws -> [UUID: Row] {
        guard !sessions.isEmpty else { return [:] }
        return try log.readView(view) { reader in
            var rows: [UUID: Row] = [:]
            for session in sessions {
                if let row = try reader.row(session.wireBytes) { rows[session] = try decode(session, row) }
            }
            return rows
        }
    }

    /// Writes a view's rows and its new checkpoint in one transaction, only if the checkpoint is still
    /// `expected` (no one else folded these events meanwhile): each event is folded once.
    private func write(_ view: String, from expected: UInt64, to next: UInt64, rows: [([UInt8], [UInt8])]) throws {
        guard next > expected else { return }
        try log.updateView(view) { writer in
            guard try writer.checkpoint() ?? 0 == expected else { return }
            for (key, value) in rows { try writer.put(key, value) }
            try writer.setCheckpoint(next)
        }
    }

    /// The persisted transcript of `session` (call ``catchUp(progress:)`` first); nil when the
    /// session has no transcript events.
    public func transcript(of session: UUID) throws -> TranscriptView? {
        try log.readView(Self.transcriptsView) { view in
            try view.row(session.wireBytes).map { try TranscriptView(session: session, row: $0) }
        }
    }

    /// The consent trail of `subject`, from the persisted view (call ``catchUp(progress:)`` first).
    public func consentTrail(of subject: SubjectHash) throws -> ConsentTrail {
        try log.readView(Self.consentView) { view in
            var entries: [ConsentTrail.Entry] = []
            try view.forEachRow(startingWith: subject.bytes) { _, row in entries.append(try ConsentTrail.Entry(row: row)) }
            return ConsentTrail(subject: subject, entries: entries)
        }
    }

    /// Drops the persisted views and folds the whole log again.
    @discardableResult
    public func rebuild(progress: ((UInt64, UInt64) -> Void)? = nil) throws -> UInt64 {
        for view in Self.views { try log.dropView(view) }
        return try catchUp(progress: progress)
    }

    /// Every session in the persisted list (call ``catchUp(progress:)`` first for the latest).
    public func sessions() throws -> [SessionSummary] {
        try log.readView(Self.sessionsView) { view in
            var summaries: [SessionSummary] = []
            try view.forEachRow { key, row in
                guard key.count == 16 else { return }
                summaries.append(try SessionSummary(session: UUID(wire: key), row: row))
            }
            return summaries
        }
    }
}

extension UInt64 {
    var bigEndianBytes: [UInt8] { withUnsafeBytes(of: bigEndian) { Array($0) } }
}

extension UUID {
    /// The 16 bytes in RFC 9562 order.
    var wireBytes: [UInt8] { withUnsafeBytes(of: uuid) { Array($0) } }

    init(wire bytes: [UInt8]) {
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: bytes) }
        self.init(uuid: value)
    }
}
