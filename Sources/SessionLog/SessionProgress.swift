import EventLog
import Foundation

/// How far the store holds a session: its number of events and the last of them, as a live client
/// resuming a session, or a cache of what was made from it, needs to know.
public struct SessionProgress: Sendable {
    /// Events stored in the session's stream, erased ones included.
    public var stored: UInt64
    /// The last of them, unless there is none or its key was destroyed.
    public var last: RecordedEvent?

    /// What the store holds of `session` now.
    public init(of session: UUID, in log: EventLog) throws {
        let stream = SessionStreams.session(session)
        stored = try log.streamMetadata(stream)?.version ?? 0
        last = stored == 0 ? nil : try log.readStream(stream, from: stored - 1, maxCount: 1, skippingErased: true) { $0 }.first
    }

    /// The number of events stored in `session`'s stream: it changes with every append to the session.
    public static func version(of session: UUID, in log: EventLog) throws -> UInt64 {
        try log.streamMetadata(SessionStreams.session(session))?.version ?? 0
    }
}
