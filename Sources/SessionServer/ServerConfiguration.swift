import Foundation

/// How `sessionstore serve` listens and what it bounds (docs/SERVER.md, "Limits").
public struct ServerConfiguration: Sendable {
    /// The address to listen on; the default keeps the server on this machine (put a TLS proxy in front
    /// to serve others).
    public var host = "127.0.0.1"
    /// The port; 0 takes a free one (``SessionServer/run(ready:)`` is told which).
    public var port = 8440
    /// The largest body `POST /v1/events` takes; a larger one is refused with 413 and nothing appended.
    public var maximumBodyBytes = 256 << 20
    /// The longest line of an NDJSON body (a chunk of audio is the longest kind); 413 above it.
    public var maximumLineBytes = 8 << 20
    /// Connections served at once; more wait in the listen backlog until one closes.
    public var maximumConnections = 256
    /// Appends waiting for the store at once; beyond them a request is answered 503 with Retry-After.
    public var maximumQueuedAppends = 64
    /// A connection that sends and receives nothing for this long is closed.
    public var idleTimeout: Duration = .seconds(60)
    /// A connection whose first request head is not whole this long after it opened is closed.
    public var headTimeout: Duration = .seconds(30)
    /// A request body must arrive whole within this time (a client trickling bytes cannot hold a slot forever).
    public var bodyTimeout: Duration = .seconds(300)
    /// HTTPS (and WSS) from a certificate chain and its private key, PEM files; plain HTTP when nil.
    public var tls: (certificateChain: String, privateKey: String)?
    /// An identity provider whose JWTs are accepted beside the store's own tokens; none by default.
    public var identityTokens: IdentityTokens?
    /// Where request bodies are spooled before they are checked and appended.
    public var spoolDirectory = NSTemporaryDirectory()

    /// The defaults above.
    public init() {}
}
