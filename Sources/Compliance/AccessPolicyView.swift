import EventLog
import Migrations
import SessionLog
import SessionModel

/// The access policy in force without reading the whole audit stream, which grows by one event per read
/// recorded: the view `access-policy` (docs/FORMAT.md §8) holds the policy as of the audit stream's first
/// events; a reader folds the events after them, and writes the row again once ``foldEvery`` or more
/// were left to fold, so that finding the policy decodes fewer than that many whatever the store holds.
struct AccessPolicyView {
    static let name = "access-policy"
    static let rowKey: [UInt8] = [0]
    static let foldEvery = 32

    /// The policy after the audit stream's first `auditEvents` events; nil when none of them set one.
    struct Row: Equatable {
        var auditEvents: UInt64
        var policy: AccessPolicy?
    }

    let log: EventLog

    /// The policy in force now (nil: never set), and how many audit events were decoded to find it.
    func current() throws -> (policy: AccessPolicy?, decoded: Int) {
        let stored = try log.readView(Self.name) { try $0.row(Self.rowKey) }.map(Row.init(row:)) ?? Row(auditEvents: 0)
        let newer = try log.readStream(SessionStreams.audit, from: stored.auditEvents) { try SessionMigrations.codec.decode($0) }
        var row = stored
        for recorded in newer {
            if case .accessPolicySet(let policy) = recorded.event.payload { row.policy = policy }
        }
        row.auditEvents += UInt64(newer.count)
        if newer.count >= Self.foldEvery, let last = newer.last {
            try? write(row, checkpoint: last.position + 1)  // a read-only store or replica folds again next time
        }
        return (row.policy, newer.count)
    }

    /// Stores `row` unless the stored one has folded as far already (another reader wrote it meanwhile).
    private func write(_ row: Row, checkpoint: UInt64) throws {
        try log.updateView(Self.name) { view in
            let stored = try view.row(Self.rowKey).map(Row.init(row:))
            guard (stored?.auditEvents ?? 0) < row.auditEvents else { return }
            try view.put(Self.rowKey, row.rowBytes)
            try view.setCheckpoint(checkpoint)
        }
    }
}

/// The row's protobuf message, `AccessPolicyRow` in docs/views.proto: fields 1 audit events folded ·
/// 2 whether a policy was set · 3 whether it requires a purpose.
extension AccessPolicyView.Row {
    init(auditEvents: UInt64) {
        self.init(auditEvents: auditEvents, policy: nil)
    }

    var rowBytes: [UInt8] {
        var writer = WireWriter()
        writer.uint(1, auditEvents)
        writer.bool(2, policy != nil)
        writer.bool(3, policy?.purposeRequired ?? false)
        return writer.bytes
    }

    init(row: [UInt8]) throws {
        var (events, set, required) = (UInt64(0), false, false)
        try WireReader.readFields(of: row) { field, type, reader in
            switch field {
            case 1: events = try reader.uint64(type, field)
            case 2: set = try reader.uint64(type, field) != 0
            case 3: required = try reader.uint64(type, field) != 0
            default: try reader.skip(type)
            }
        }
        self.init(auditEvents: events, policy: set ? AccessPolicy(purposeRequired: required) : nil)
    }
}
