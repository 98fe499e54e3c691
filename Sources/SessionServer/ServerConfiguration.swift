import Foundation

/// How `sessionstore serve` listens and what it bounds (docs/SERVER.md, "Limits").
package struct ServerConfiguration: Sendable {
    /// The address to listen on; the default keeps the server on this machine (put a TLS proxy in front
    /// to serve others).
    package var host = "127.0.0.1"
    /// The port; 0 takes a free one (``SessionServer/run(ready:)`` is told which).
    package var port = 8440
    /// The largest body `POST /v1/events` takes; a larger one is refused with 413 and nothing appended.
    package var maximumBodyBytes = 256 << 20
    /// The longest line of an NDJSON body (a chunk of audio is the longest kind); 413 above it.
    package var maximumLineBytes = 8 << 20
    /// Connections served at once; more wait in the listen backlog until one closes.
    package var maximumConnections = 256
    /// Appends waiting for the store at once; beyond them a request is answered 503 with Retry-After.
    package var maximumQueuedAppends = 64
    /// A connection that sends and receives nothing for this long is closed.
    package var idleTimeout: Duration = .seconds(60)
    /// A connection whose first request head is not whole this long after it opened is closed.
    package var headTimeout: Duration = .seconds(30)
    /// A request body must arrive whole within this time (a client trickling bytes cannot hold a slot forever).
    package var bodyTimeout: Duration = .seconds(300)
    /// HTTPS (and WSS) from a certificate chain and its private key, PEM files; plain HTTP when nil.
    package var tls: (certificateChain: String, privateKey: String)?
    /// An identity provider whose JWTs are accepted beside the store's own tokens; none by default.
    package var identityTokens: IdentityTokens?
    /// Where request bodies are spooled before they are checked and appended.
    package var spoolDirectory = NSTemporaryDirectory()
    /// Requests each token may make, a second on average and in a burst; beyond them a request is answered 429 with
    /// `Retry-After`. None by default.
    package var rateLimit: RateLimit?

    /// The defaults above.
    package init() {}
}
