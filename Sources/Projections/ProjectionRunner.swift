import EventLog
import Foundation
import Migrations
import SessionModel

/// Keeps the persisted session list up to date: folds the events after its checkpoint, a batch at a
/// time, writing each batch's rows and the new checkpoint in one transaction (exactly-once across
/// crashes). `rebuild` starts again from position 0.
public struct ProjectionRunner: Sendable {
    public static let sessionsView = "sessions"
    public static let batchSize = 16_384

    public let log: EventLog
    public let codec: SessionEventCodec

    public init(log: EventLog, codec: SessionEventCodec = SessionMigrations.codec) {
        self.log = log
        self.codec = codec
    }

    /// Folds every event not folded yet; returns how many were read. `progress` gets (position, log size).
    @discardableResult
    public func catchUp(progress: ((UInt64, UInt64) -> Void)? = nil) throws -> UInt64 {
        var position = try log.readView(Self.sessionsView) { try $0.checkpoint() } ?? 0
        let end = try log.eventCount()
        var folded: UInt64 = 0
        while true {
            let recorded = try log.readAll(from: position, maxCount: Self.batchSize)
            guard let last = recorded.last else { break }
            var touched: [UUID: SessionSummary] = [:]
            try log.readView(Self.sessionsView) { view in
                for record in recorded {
                    let decoded = try codec.decode(record)
                    guard !decoded.isCopy else { continue }  // consent copies in subjects' trails
                    let session = decoded.event.session
                    if touched[session] == nil {
                        let key = session.wireBytes
                        touched[session] = try view.row(key).map { try SessionSummary(session: session, row: $0) }
                            ?? SessionSummary(session: session)
                    }
                    touched[session]!.apply(decoded.event)
                }
            }
            let next = last.position + 1
            try log.updateView(Self.sessionsView) { view in
                // Only if no one else moved the checkpoint meanwhile: each event is folded once.
                guard try view.checkpoint() ?? 0 == position else { return }
                for (session, summary) in touched { try view.put(session.wireBytes, summary.rowBytes) }
                try view.setCheckpoint(next)
            }
            folded += UInt64(recorded.count)
            position = next
            progress?(position, end)
        }
        return folded
    }

    /// Drops the session list and folds the whole log again.
    @discardableResult
    public func rebuild(progress: ((UInt64, UInt64) -> Void)? = nil) throws -> UInt64 {
        try log.dropView(Self.sessionsView)
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

extension UUID {
    /// The 16 bytes in RFC 9562 order.
    var wireBytes: [UInt8] { withUnsafeBytes(of: uuid) { Array($0) } }

    init(wire bytes: [UInt8]) {
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: bytes) }
        self.init(uuid: value)
    }
}
