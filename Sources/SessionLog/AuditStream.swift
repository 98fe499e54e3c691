import EventLog
import Foundation
import Migrations
import SessionModel

/// The store's audit stream (``SessionStreams/audit``) as the compliance tools write and read it:
/// policies, purges, erasures, exports, holds and reads, sealed with the audit key so that they outlive
/// every erasure.
public enum AuditStream {
    /// Every event of the audit stream, decoded, in log order.
    public static func events(in log: EventLog) throws -> [RecordedSessionEvent] {
        let codec = SessionMigrations.codec
        return try log.readStream(SessionStreams.audit) { try codec.decode($0) }
    }

    /// The last payload of the audit stream that `pick` turns into a value (the policy in force, say).
    public static func latest<T>(in log: EventLog, _ pick: (SessionPayload) -> T?) throws -> T? {
        for recorded in try events(in: log).reversed() {
            if let value = pick(recorded.event.payload) { return value }
        }
        return nil
    }

    /// Appends `payload` to the audit stream at `time` (the writer's clock, ms since 1970) and returns its
    /// position. With `expectedVersion`, only if the stream still holds that many events.
    @discardableResult
    public static func append(_ payload: SessionPayload, at time: Int64, expectedVersion: ExpectedVersion = .any,
                              to log: EventLog) async throws -> UInt64 {
        let event = SessionEvent(session: SessionStreams.audit.uuid, occurredAt: time, payload: payload)
        return try await log.append([SessionMigrations.codec.encode(event)], to: SessionStreams.audit, expectedVersion: expectedVersion,
                                    keyScope: .audit).positions.lowerBound
    }
}
