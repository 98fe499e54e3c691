import EventLog
import Foundation
import Migrations
import SessionModel

/// Keeps the persisted views up to date (the session list, and every subject's consent trail): folds
/// the events after their checkpoints, a batch at a time, writing each view's rows and its new
/// checkpoint in one transaction (exactly-once across crashes). `rebuild` starts again from 0.
public struct ProjectionRunner: Sendable {
    public static let sessionsView = "sessions"
    public static let consentView = "consent-trail"
    public static let batchSize = 16_384

    public let log: EventLog
    public let codec: SessionEventCodec

    public init(log: EventLog, codec: SessionEventCodec = SessionMigrations.codec) {
        self.log = log
        self.codec = codec
    }

    /// Folds every event not folded yet into the session list and the consent trails; returns how
    /// many events were read. `progress` gets (position, log size).
    @discardableResult
    public func catchUp(progress: ((UInt64, UInt64) -> Void)? = nil) throws -> UInt64 {
        var sessionsAt = try log.readView(Self.sessionsView) { try $0.checkpoint() } ?? 0
        var trailsAt = try log.readView(Self.consentView) { try $0.checkpoint() } ?? 0
        var position = min(sessionsAt, trailsAt)
        let end = try log.eventCount()
        var read: UInt64 = 0
        while true {
            let codec = self.codec
            let recorded = try log.readAll(from: position, maxCount: Self.batchSize) { try codec.decode($0) }
            guard let last = recorded.last else { break }
            var touched: [UUID: SessionSummary] = [:]
            var entries: [(key: [UInt8], entry: ConsentTrail.Entry)] = []
            try log.readView(Self.sessionsView) { view in
                for decoded in recorded {
                    if decoded.isCopy {
                        // Consent copies in subjects' trails feed the trails, not the session list.
                        if decoded.position >= trailsAt, let (subject, entry) = ConsentTrail.entry(from: decoded) {
                            entries.append((subject.bytes + decoded.position.bigEndianBytes, entry))
                        }
                        continue
                    }
                    guard decoded.position >= sessionsAt else { continue }
                    let session = decoded.event.session
                    if touched[session] == nil {
                        touched[session] = try view.row(session.wireBytes).map { try SessionSummary(session: session, row: $0) }
                            ?? SessionSummary(session: session)
                    }
                    touched[session]!.apply(decoded.event)
                }
            }
            let next = last.position + 1
            // Each view: its rows and its checkpoint together, only if no one moved the checkpoint meanwhile.
            if next > sessionsAt {
                let expected = sessionsAt
                try log.updateView(Self.sessionsView) { view in
                    guard try view.checkpoint() ?? 0 == expected else { return }
                    for (session, summary) in touched { try view.put(session.wireBytes, summary.rowBytes) }
                    try view.setCheckpoint(next)
                }
                sessionsAt = next
            }
            if next > trailsAt {
                let expected = trailsAt
                try log.updateView(Self.consentView) { view in
                    guard try view.checkpoint() ?? 0 == expected else { return }
                    for (key, entry) in entries { try view.put(key, entry.rowBytes) }
                    try view.setCheckpoint(next)
                }
                trailsAt = next
            }
            read += UInt64(recorded.count)
            position = next
            progress?(position, end)
        }
        return read
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
        try log.dropView(Self.sessionsView)
        try log.dropView(Self.consentView)
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
