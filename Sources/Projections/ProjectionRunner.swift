import EventLog
import Foundation
import Migrations
import SessionLog
import SessionModel
import Synchronization

/// Keeps the persisted views up to date (the session list, the transcripts and every subject's
/// consent trail): folds the events after their checkpoints and writes the views' rows with their
/// new checkpoints in one transaction (exactly-once across crashes). `rebuild` starts again from 0.
public struct ProjectionRunner: Sendable {
    /// The persisted session list.
    public static let sessionsView = "sessions"
    /// The persisted consent trails, one row per grant or revocation.
    public static let consentView = "consent-trail"
    /// The persisted transcripts, a row per 64 committed segments and one of partials per session (``TranscriptParts``).
    public static let transcriptsView = "transcript-parts"
    /// Which sessions are runs of which (`replay --drive`): a row keyed by the source's id and the run's,
    /// so that a session's runs are found without reading the whole session list.
    public static let runsView = "runs"
    /// The view that held the transcripts before, one row per session: dropped at the first catch-up.
    static let retiredTranscriptsView = "transcripts"
    static let views = [sessionsView, transcriptsView, consentView, runsView]
    /// Events read and folded per batch.
    public static let defaultBatchSize = 32_768

    /// The store whose views this runner keeps.
    public let log: EventLog
    /// The codec that reads every schema version.
    public let codec: SessionEventCodec
    /// Events read at a time (the next batches are read while one is folded).
    public let batchSize: Int
    /// Events folded in memory before their rows and checkpoints are committed: fewer commits (each
    /// one a sync), and a session spread over several batches is written once.
    public let eventsPerCommit: Int
    /// On a read-only replica (a PostgreSQL hot standby), which refuses the views' rows: what the last
    /// ``catchUp(progress:)`` folded past the stored checkpoints. The queries answer from the stored
    /// rows with these over them, as they would after the rows were written.
    private let unstored = Shared<FoldedRows?>(nil)
    /// The transcripts this runner stored last: a session still being recorded is folded on from here.
    private let storedTranscripts = TranscriptCache()

    /// A runner over `log`'s persisted views.
    public init(log: EventLog, codec: SessionEventCodec = SessionMigrations.codec, batchSize: Int = defaultBatchSize,
                eventsPerCommit: Int = 131_072) {
        precondition(batchSize > 0 && eventsPerCommit > 0, "batches and commits hold at least one event")
        self.log = log
        self.codec = codec
        self.batchSize = batchSize
        self.eventsPerCommit = eventsPerCommit
    }

    /// Folds every event not folded yet into the session list, the transcripts and the consent
    /// trails; returns how many events were read. `progress` gets (position, log size).
    ///
    /// While one batch is folded and written, the next two are read (decrypted and decoded) on other
    /// threads: the fold and the commit do not wait for the reads, and two reads fill the gaps in
    /// each other's use of the cores.
    ///
    /// On a read-only replica nothing is written: the folded rows stay in this runner, and its queries
    /// answer with them (the views' tail since the primary last caught up, or the whole log at worst).
    @discardableResult
    public func catchUp(progress: ((UInt64, UInt64) -> Void)? = nil) throws -> UInt64 {
        // Where each view stands, and whether the retired one is still there, in one snapshot.
        let stand = try log.readViews(Self.views + [Self.retiredTranscriptsView]) { views in
            (checkpoints: try views.dropLast().map { try $0.checkpoint() ?? 0 }, retiredStored: try views.last!.checkpoint() != nil)
        }
        var checkpoints = stand.checkpoints
        let readOnly = try log.isReadOnlyReplica()
        if !readOnly, stand.retiredStored { try log.dropView(Self.retiredTranscriptsView) }
        var unwritten = FoldedRows()
        var read: UInt64 = 0
        let reader = BatchPrefetcher(log: log, codec: codec, batchSize: batchSize)
        var position = checkpoints.min() ?? 0
        // Positions are dense, so every batch's start is known before the one before it is read.
        while case let end = try log.eventCount(), position < end {
            var starts = stride(from: position, to: end, by: batchSize).makeIterator()
            var pending: [BatchPrefetcher.Pending] = []
            func readAhead() {
                while pending.count < Self.readAhead, let start = starts.next() { pending.append(reader.prefetch(from: start)) }
            }
            readAhead()
            while !pending.isEmpty {
                let next = pending.removeFirst()
                let batch = try next.wait()
                readAhead()
                try fold(batch, from: checkpoints, into: &unwritten)
                position = min(next.end, end)  // erased records are not in the batch, but were read past
                read += UInt64(batch.count)
                if !readOnly, unwritten.events >= eventsPerCommit || pending.isEmpty {
                    try write(unwritten, from: checkpoints, through: position)
                    checkpoints = checkpoints.map { max($0, position) }
                    unwritten = FoldedRows()
                }
                progress?(position, end)
            }
        }
        if readOnly { unstored.current = unwritten }
        return read
    }

    /// Folds the events from `position` to the log's end into the session list in memory, writing
    /// nothing and taking no lock: for a copy of the list that stands at `position` (`rows` gives a
    /// session's row in that copy, nil for none). Returns the rows the events changed, as they are
    /// now, and the position folded through. The rows are those ``catchUp(progress:)`` would write.
    public func foldSessionList(from position: UInt64, rows current: (UUID) -> SessionSummary?) throws
        -> (rows: [UUID: SessionSummary], through: UInt64) {
        let reader = BatchPrefetcher(log: log, codec: codec, batchSize: batchSize)
        var changed: [UUID: SessionSummary] = [:]
        var position = position
        let end = try log.eventCount()
        while position < end {
            let batch = try reader.read(from: position)
            for session in SessionListFold.sessions(in: batch, from: position) where changed[session] == nil {
                changed[session] = current(session)
            }
            SessionListFold.fold(batch, from: position, into: &changed)
            position = min(position + UInt64(batchSize), end)  // erased records are not in the batch, but were read past
        }
        return (changed, position)
    }

    /// View rows folded and not written yet.
    private struct FoldedRows: Sendable {
        var summaries: [UUID: SessionSummary] = [:]
        var transcripts: [UUID: TranscriptView] = [:]
        /// What changed in each of `transcripts` since its rows were stored.
        var transcriptChanges: [UUID: TranscriptChanges] = [:]
        /// Sessions erased or purged: their transcript rows go.
        var shreddedTranscripts: Set<UUID> = []
        /// Sessions whose partials retention discarded, whose transcript rows are not in memory.
        var partialsDropped: Set<UUID> = []
        var trailRows: [([UInt8], [UInt8])] = []
        /// Keys of the runs view: a source session's id, then its run's.
        var runKeys: [[UInt8]] = []
        var events = 0
    }

    /// Batches read at once while one is folded.
    static let readAhead = 2

    /// Folds one batch into each view past that view's own checkpoint (they differ only in stores
    /// whose views were written apart): one pass finds the sessions whose rows are not in memory yet,
    /// one pass folds, a run of one session's events at a time.
    private func fold(_ events: [RecordedSessionEvent], from checkpoints: [UInt64], into rows: inout FoldedRows) throws {
        let (sessionsFrom, transcriptsFrom, trailsFrom, runsFrom) = (checkpoints[0], checkpoints[1], checkpoints[2], checkpoints[3])
        var transcriptSessions: Set<UUID> = []
        var previousWithTranscript: UUID?
        for event in events where event.feedsSessionViews {
            let session = event.event.session
            if event.position >= runsFrom, case .replayRun(let run) = event.event.payload {
                rows.runKeys.append(run.source.wireBytes + session.wireBytes)
            }
            if session != previousWithTranscript, event.position >= transcriptsFrom, Self.isTranscript(event.event.type) {
                previousWithTranscript = session
                if rows.transcripts[session] == nil { transcriptSessions.insert(session) }
            }
        }
        let summarySessions = SessionListFold.sessions(in: events, from: sessionsFrom).filter { rows.summaries[$0] == nil }
        rows.summaries.merge(try loadRows(Self.sessionsView, for: summarySessions, decode: SessionSummary.init(session:row:))) { $1 }
        let kept = storedTranscripts.take(transcriptSessions, storedThrough: transcriptsFrom)
        transcriptSessions.subtract(kept.keys)
        rows.transcripts.merge(consume kept) { $1 }
        rows.transcripts.merge(try loadTranscripts(of: transcriptSessions)) { $1 }
        SessionListFold.fold(events, from: sessionsFrom, into: &rows.summaries)
        events.forEachRun { first, run in
            if first.isCopy {  // consent copies in subjects' trails feed the trails, not the session list
                if first.position >= trailsFrom, let (subject, entry) = ConsentTrail.entry(from: first) {
                    rows.trailRows.append((subject.bytes + first.position.bigEndianBytes, entry.rowBytes))
                }
            }
            if let sessions = first.discardedPartials, first.position >= transcriptsFrom {
                for session in sessions {
                    if rows.transcripts[session] != nil {
                        rows.transcripts[session]!.dropPartials()
                        rows.transcriptChanges[session, default: TranscriptChanges()].partials = true
                    } else {
                        rows.partialsDropped.insert(session)
                    }
                }
            }
            if let (sessions, _, _) = first.shredding, first.position >= transcriptsFrom {
                for session in sessions {
                    rows.transcripts[session] = nil
                    rows.transcriptChanges[session] = nil
                    rows.shreddedTranscripts.insert(session)
                }
            }
            guard let run, run.last!.position >= transcriptsFrom, run.contains(where: { Self.isTranscript($0.event.type) }) else { return }
            let session = first.event.session
            var transcript = rows.transcripts.removeValue(forKey: session) ?? TranscriptView(session: session)
            var changes = rows.transcriptChanges[session] ?? TranscriptChanges()
            for event in run where event.position >= transcriptsFrom && Self.isTranscript(event.event.type) {
                changes.apply(event.event, to: &transcript)
            }
            rows.transcripts[session] = transcript
            rows.transcriptChanges[session] = changes
            rows.shreddedTranscripts.remove(session)
        }
        rows.events += events.count
    }

    /// Writes every view's rows and its new checkpoint in one transaction, each view only if its
    /// checkpoint is still the one folded from (no one else folded these events meanwhile).
    private func write(_ folded: FoldedRows, from checkpoints: [UInt64], through next: UInt64) throws {
        try log.updateViews(Self.views) { writers in
            let (sessions, transcripts, trails, runs) = (writers[0], writers[1], writers[2], writers[3])
            func due(_ index: Int) throws -> Bool {
                try next > checkpoints[index] && writers[index].checkpoint() ?? 0 == checkpoints[index]
            }
            if try due(0) {
                for (session, summary) in folded.summaries { try sessions.put(session.wireBytes, summary.rowBytes) }
                try sessions.setCheckpoint(next)
            }
            if try due(1) {
                // From a server, in a few round trips for all: whether each has partials stored (a transcript without
                // any removes its row), and the data keys its rows are sealed with.
                try transcripts.prefetch(folded.transcripts.keys.map(TranscriptParts.partialsKey))
                try transcripts.prefetchSealingKeys(of: folded.transcripts.keys.map(SessionStreams.session))
                for session in folded.shreddedTranscripts { try TranscriptParts.remove(session, from: transcripts) }
                for session in folded.partialsDropped where folded.transcripts[session] == nil {
                    try transcripts.remove(TranscriptParts.partialsKey(session))
                }
                for (session, transcript) in folded.transcripts {
                    try TranscriptParts.write(transcript, changes: folded.transcriptChanges[session] ?? TranscriptChanges(), into: transcripts)
                }
                try transcripts.setCheckpoint(next)
                // Unused unless the commit stores `next`.
                storedTranscripts.stored(folded.transcripts, removed: folded.shreddedTranscripts.union(folded.partialsDropped),
                                         checkpoint: next, previous: checkpoints[1])
            }
            if try due(2) {
                for (key, value) in folded.trailRows { try trails.put(key, value) }
                try trails.setCheckpoint(next)
            }
            if try due(3) {
                for key in folded.runKeys { try runs.put(key, []) }
                try runs.setCheckpoint(next)
            }
        }
    }

    static func isTranscript(_ type: EventType) -> Bool {
        switch type {
        case .transcriptPartial, .transcriptCommitted, .transcriptCorrected: true
        default: false
        }
    }

    /// The stored rows of these sessions, read ahead together from a server.
    private func loadRows<Row>(_ view: String, for sessions: Set<UUID>,
                               decode: (UUID, [UInt8]) throws -> Row) throws -> [UUID: Row] {
        guard !sessions.isEmpty else { return [:] }
        return try log.readView(view) { reader in
            try reader.prefetch(sessions.map(\.wireBytes))
            var rows: [UUID: Row] = [:]
            for session in sessions {
                if let row = try reader.row(session.wireBytes) { rows[session] = try decode(session, row) }
            }
            return rows
        }
    }

    /// The stored transcripts of these sessions. From a server, whether each has rows is read ahead for all together
    /// first, so that only a session with rows costs a walk of the view (a round trip).
    private func loadTranscripts(of sessions: Set<UUID>) throws -> [UUID: TranscriptView] {
        guard !sessions.isEmpty else { return [:] }
        return try log.readView(Self.transcriptsView) { reader in
            let readAhead = try reader.prefetch(sessions.flatMap(TranscriptParts.presenceKeys))
            var transcripts: [UUID: TranscriptView] = [:]
            for session in sessions {
                if readAhead, try !TranscriptParts.presenceKeys(session).contains(where: reader.hasRow) { continue }
                if let transcript = try TranscriptParts.read(session, from: reader) { transcripts[session] = transcript }
            }
            return transcripts
        }
    }

    /// The persisted transcript of `session` (call ``catchUp(progress:)`` first); nil when the
    /// session has no transcript events.
    public func transcript(of session: UUID) throws -> TranscriptView? {
        let unstored = unstored.current
        if let transcript = unstored?.transcripts[session] { return transcript }
        if unstored?.shreddedTranscripts.contains(session) == true { return nil }
        var stored = try log.readView(Self.transcriptsView) { try TranscriptParts.read(session, from: $0) }
        if unstored?.partialsDropped.contains(session) == true { stored?.dropPartials() }
        return stored
    }

    /// The consent trail of `subject`, from the persisted view (call ``catchUp(progress:)`` first).
    public func consentTrail(of subject: SubjectHash) throws -> ConsentTrail {
        let rows = try trailRows(startingWith: subject.bytes)
        return ConsentTrail(subject: subject, entries: try rows.map { try ConsentTrail.Entry.decode(key: $0.key, row: $0.row).1 })
    }

    /// The consent view's rows whose keys start with `prefix`, in key order, with the unstored ones.
    private func trailRows(startingWith prefix: [UInt8] = []) throws -> [(key: [UInt8], row: [UInt8])] {
        var rows = try log.readView(Self.consentView) { view in
            var rows: [(key: [UInt8], row: [UInt8])] = []
            try view.forEachRow(startingWith: prefix) { key, row in rows.append((key, row)) }
            return rows
        }
        guard let unstored = unstored.current, !unstored.trailRows.isEmpty else { return rows }
        var byKey = Dictionary(rows.map { ($0.key, $0.row) }, uniquingKeysWith: { $1 })
        for (key, row) in unstored.trailRows where key.starts(with: prefix) { byKey[key] = row }
        rows = byKey.map { (key: $0.key, row: $0.value) }.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        return rows
    }

    /// Every grant and revocation given in `session`, with its subject, in log order, from the
    /// persisted view (call ``catchUp(progress:)`` first). Also for sessions erased or purged since.
    public func consentEntries(ofSession session: UUID) throws -> [(subject: SubjectHash, entry: ConsentTrail.Entry)] {
        var found: [(subject: SubjectHash, entry: ConsentTrail.Entry)] = []
        for (key, row) in try trailRows() {
            let (subject, entry) = try ConsentTrail.Entry.decode(key: key, row: row)
            if entry.session == session { found.append((subject, entry)) }
        }
        return found.sorted { $0.entry.position < $1.entry.position }
    }

    /// Drops the persisted views and folds the whole log again.
    @discardableResult
    public func rebuild(progress: ((UInt64, UInt64) -> Void)? = nil) throws -> UInt64 {
        for view in Self.views { try log.dropView(view) }
        storedTranscripts.clear()
        return try catchUp(progress: progress)
    }

    /// One session's row of the persisted list (call ``catchUp(progress:)`` first for the latest); nil
    /// for a session the list does not hold. One lookup, not a read of the whole list.
    public func session(_ id: UUID) throws -> SessionSummary? {
        if let unstored = unstored.current?.summaries[id] { return unstored }
        return try log.readView(Self.sessionsView) { view in try view.row(id.wireBytes).map { try SessionSummary(session: id, row: $0) } }
    }

    /// The readable runs of `source` (`replay --drive`) from the runs view and the session list (call
    /// ``catchUp(progress:)`` first): a lookup per run, not a read of the whole list. Erased and purged
    /// runs are left out (their rows in the runs view, which hold only ids, may stay).
    public func runs(of source: UUID) throws -> [SessionSummary] {
        let prefix = source.wireBytes
        var ids = try log.readView(Self.runsView) { view in
            var ids: [UUID] = []
            try view.forEachRow(startingWith: prefix) { key, _ in if key.count == 32 { ids.append(UUID(wire: Array(key.dropFirst(16)))) } }
            return ids
        }
        for key in unstored.current?.runKeys ?? [] where key.starts(with: prefix) { ids.append(UUID(wire: Array(key.dropFirst(16)))) }
        var seen = Set<UUID>()
        return try ids.filter { seen.insert($0).inserted }.compactMap(session).filter { !$0.isShredded }
    }

    /// Every session in the persisted list (call ``catchUp(progress:)`` first for the latest).
    public func sessions() throws -> [SessionSummary] {
        try sessionsWithCheckpoint().sessions
    }

    /// Every session in the persisted list and the list's checkpoint, read together (on a read-only
    /// replica, the checkpoint of the stored rows, under which this runner's unstored rows lie, unless
    /// `includingUnstored` is false: then the stored rows alone, which the checkpoint describes).
    public func sessionsWithCheckpoint(includingUnstored: Bool = true) throws -> (sessions: [SessionSummary], checkpoint: UInt64) {
        let (stored, checkpoint) = try log.readView(Self.sessionsView) { view in
            var summaries: [SessionSummary] = []
            try view.forEachRow { key, row in
                guard key.count == 16 else { return }
                summaries.append(try SessionSummary(session: UUID(wire: key), row: row))
            }
            return (summaries, try view.checkpoint() ?? 0)
        }
        return (includingUnstored ? merged(stored) : stored, checkpoint)
    }

    /// The session list's checkpoint: the log position its rows are folded up to.
    public func sessionsCheckpoint() throws -> UInt64 {
        try log.readView(Self.sessionsView) { try $0.checkpoint() } ?? 0
    }

    private func merged(_ stored: [SessionSummary]) -> [SessionSummary] {
        guard let unstored = unstored.current, !unstored.summaries.isEmpty else { return stored }
        var bySession = Dictionary(stored.map { ($0.session, $0) }, uniquingKeysWith: { $1 })
        bySession.merge(unstored.summaries) { $1 }
        return bySession.values.sorted { $0.session.wireBytes.lexicographicallyPrecedes($1.session.wireBytes) }  // the view's order
    }

    /// A value the copies of a runner share (it is a value itself).
    private final class Shared<Value: Sendable>: Sendable {
        private let value: Mutex<Value>

        init(_ value: Value) {
            self.value = Mutex(value)
        }

        var current: Value {
            get { value.withLock { $0 } }
            set { value.withLock { $0 = newValue } }
        }
    }
}

extension FixedWidthInteger {
    var bigEndianBytes: [UInt8] { withUnsafeBytes(of: bigEndian) { Array($0) } }
}

extension UUID {
    init(wire bytes: [UInt8]) {
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: bytes) }
        self.init(uuid: value)
    }
}

extension RecordedSessionEvent {
    /// Whether the event is one of a session's own: not a consent copy in a subject's stream, not an
    /// event about the store in its audit or tokens stream (an export, a token).
    var feedsSessionViews: Bool { !isCopy && !SessionStreams.holdsStoreEvents(stream) }

    /// The sessions an erasure or a retention purge in the audit stream shredded, with their new status.
    var shredding: (sessions: [UUID], status: SessionSummary.Status, subject: SubjectHash?)? {
        guard stream == SessionStreams.audit.uuid else { return nil }
        switch event.payload {
        case .subjectErased(let erased): return (erased.sessions, .erased, erased.subject)
        case .retentionPurged(let purged) where !purged.partialsOnly: return (purged.sessions, .purged, nil)
        default: return nil
        }
    }

    /// The sessions whose transcript partials a retention purge in the audit stream discarded.
    var discardedPartials: [UUID]? {
        guard stream == SessionStreams.audit.uuid, case .retentionPurged(let purged) = event.payload, purged.partialsOnly else { return nil }
        return purged.sessions
    }
}
