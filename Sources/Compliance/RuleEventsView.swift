import EventLog
import Migrations
import SessionLog
import SessionModel

/// The store's events the rules read (retention policies and purges, erasures, holds), without reading the
/// whole audit stream, which grows by one event per read recorded: the view `rule-events` (docs/FORMAT.md
/// §8) holds their audit-stream numbers as of the stream's first events; a reader reads those events by
/// number, folds the events after them, and writes the view again once ``foldEvery`` or more were left to
/// fold, so that a session's check decodes fewer than that many of the rest whatever the store holds.
struct RuleEventsView {
    static let name = "rule-events"
    /// The row holding how many audit events are folded; each rule event's row is `0x01 ‖ number u64`.
    static let progressKey: [UInt8] = [0]
    static let eventPrefix: [UInt8] = [1]
    static let foldEvery = 32

    /// The audit events any rule folds (``ViolationCheck/Fold``); a rule that reads another must add it here.
    static let types: Set<EventType> = [.retentionPolicySet, .retentionPurged, .subjectErased, .holdPlaced, .holdReleased]

    let log: EventLog

    /// The rule events of the audit stream now, in log order, and how many audit events were decoded.
    func events() throws -> (events: [RecordedSessionEvent], decoded: Int) {
        let codec = SessionMigrations.codec
        let (folded, numbers) = try log.readView(Self.name) { view -> (UInt64, [UInt64]) in
            var numbers: [UInt64] = []
            try view.forEachRow(startingWith: Self.eventPrefix) { key, _ in
                guard key.count == 9 else { return }
                numbers.append(key.dropFirst().withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) })
            }
            return (try view.row(Self.progressKey).map(Self.foldedCount) ?? 0, numbers)
        }
        var events = try numbers.flatMap { number in
            try log.readStream(SessionStreams.audit, from: number, maxCount: 1, skippingErased: true) { try codec.decode($0) }
        }
        let newer = try log.readStream(SessionStreams.audit, from: folded, skippingErased: true) { try codec.decode($0) }
        let found = newer.filter { Self.types.contains($0.event.type) }
        events += found
        if newer.count >= Self.foldEvery {  // a read-only store or replica folds them again next time
            try? write(found.map(\.streamNumber), folded: folded + UInt64(newer.count), checkpoint: newer.last!.position + 1)
        }
        return (events, numbers.count + newer.count)
    }

    /// Stores the new rule events' numbers and the count folded, unless the stored view has folded as far
    /// already (another reader wrote it meanwhile).
    private func write(_ numbers: [UInt64], folded: UInt64, checkpoint: UInt64) throws {
        try log.updateView(Self.name) { view in
            guard try view.row(Self.progressKey).map(Self.foldedCount) ?? 0 < folded else { return }
            for number in numbers {
                var key = Self.eventPrefix
                key.appendBigEndian(number)
                try view.put(key, [])
            }
            var progress = WireWriter()
            progress.uint(1, folded)
            try view.put(Self.progressKey, progress.bytes)
            try view.setCheckpoint(checkpoint)
        }
    }

    /// The count in a progress row: `RuleEventsRow` field 1 (docs/views.proto).
    private static func foldedCount(_ row: [UInt8]) throws -> UInt64 {
        var folded: UInt64 = 0
        try WireReader.readFields(of: row) { field, type, reader in
            if field == 1 { folded = try reader.uint64(type, field) } else { try reader.skip(type) }
        }
        return folded
    }
}
