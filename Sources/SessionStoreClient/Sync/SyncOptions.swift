/// How the client syncs; the defaults suit a phone.
public struct SyncOptions: Sendable {
    /// Events sent and not yet acknowledged, at most, on one connection.
    public var window: Int = 64
    /// A connection whose oldest unacknowledged event has waited this long is given up as dead (a server that
    /// stopped answering), and so is one that does not say hello within it.
    public var acknowledgementTimeout: Duration = .seconds(10)
    /// A connection with nothing to send for this long is closed; the next append opens one again.
    public var idleTimeout: Duration = .seconds(30)
    public var backoff = Backoff()
    /// Events in one `POST /v1/events`, where the WebSocket cannot be had (a proxy refused the upgrade).
    public var batchEvents: Int = 256
    /// How long an HTTP request may take.
    public var requestTimeout: Duration = .seconds(30)

    public init() {}
}
