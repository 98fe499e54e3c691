import Foundation

/// Where a session's sync stands.
public enum ConnectionState: Sendable, Equatable {
    /// Nothing to send, no connection.
    case idle
    case connecting
    /// The live WebSocket (or the batch fallback) is sending.
    case connected
    /// The last try failed; the next comes after `retryIn` (or at once on ``SessionStoreClient/networkChanged()``).
    case backingOff(retryIn: Duration, because: String)
    /// The server refused an event; nothing more of the session is sent (``SessionStoreClient/discard(_:)``).
    case stopped(because: String)
}

/// What the client tells the app as it syncs: ``SessionStoreClient/notices()``.
public enum SyncNotice: Sendable, Equatable {
    case state(session: UUID, ConnectionState)
    /// The server stored the event (`duplicate`: it held it already) at `position`, `latency` after the app appended
    /// it (after it was sent, for an event appended before the client last started). `position` is nil for an event
    /// the server's hello on a new connection said it holds (it names only the session's last).
    case acknowledged(session: UUID, event: UUID, position: UInt64?, duplicate: Bool, latency: Duration)
    /// The server refused the event with `problem` (its RFC 9457 JSON); the session stops there.
    case refused(session: UUID, event: UUID, problem: String)
}
