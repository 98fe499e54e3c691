import EventLog
import Foundation
import SessionModel

extension SessionEventCodec {
    /// The log event for `event`. Written to a stream other than the session's own (a subject's
    /// consent stream), the payload also names the session. Transcript partials are *discardable*:
    /// sealed with the session's second key, which retention can destroy to drop them while the
    /// session's commits, audio and consent stay (docs/COMPLIANCE.md).
    public func encode(_ event: SessionEvent, storedOutsideSession: Bool = false) -> ProposedEvent {
        ProposedEvent(id: event.id, type: event.type.rawValue, data: payload(of: event, storedOutsideSession: storedOutsideSession),
                      discardable: event.type == .transcriptPartial && !storedOutsideSession)
    }

    /// The session event stored as `recorded`, upcast to the current schema.
    public func decode(_ recorded: RecordedEvent) throws -> RecordedSessionEvent {
        try decode(type: recorded.type, payload: recorded.data, id: recorded.id, stream: recorded.stream.uuid,
                   streamNumber: recorded.streamNumber, position: recorded.position,
                   recordedAt: recorded.recordedAtMilliseconds)
    }
}
