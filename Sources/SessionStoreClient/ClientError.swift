import Failures
import Foundation

/// What the client library refuses or cannot do, in the store's one error shape (``CodedError``).
public struct ClientError: CodedError, Sendable {
    public typealias Code = ErrorCode<ClientError>

    public let code: ErrorCode<ClientError>
    public let message: String
    public let underlying: (any Error)?

    package init(_ code: ErrorCode<ClientError>, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }
}

extension ClientError {
    /// What a ``LiveTransport`` throws when the upgrade to `url` was answered with anything but 101: the client then
    /// asks the server over plain HTTP why (docs/CLIENT.md, "Answers").
    public static func upgradeRefused(_ url: URL) -> ClientError {
        ClientError(.upgradeRefused, "the WebSocket upgrade of \(url.absoluteString) was refused")
    }

    /// What a ``LiveTransport`` throws when the server sends a binary message.
    public static func unexpectedMessage(_ url: URL) -> ClientError {
        ClientError(.unexpectedMessage, "the server sent a binary message on \(url.absoluteString); the live protocol has text only")
    }
}

extension ErrorCode where Domain == ClientError {
    /// An append would take the outbox past its byte budget: nothing was written.
    public static let outboxFull = Self("outbox full", .unavailable)
    /// The outbox's files are not what this library wrote: a record in the middle fails its check.
    public static let outboxDamaged = Self("outbox damaged", .integrity)
    /// The key given does not open the outbox (or is not 32 bytes).
    public static let wrongOutboxKey = Self("wrong outbox key", .key)
    /// A file of the outbox could not be read, written or synced.
    public static let outboxIO = Self("outbox input/output", .unavailable)
    /// The server refused an event of the session (422): nothing after it is sent.
    public static let sessionRefused = Self("session refused", .invalidData)
    /// The session was ended or discarded on this device: it takes no more events.
    public static let sessionClosed = Self("session closed", .conflict)
    /// An event the app built is not one the server can take (a field out of range).
    public static let invalidEvent = Self("invalid event", .invalidData)
    /// `flush(timeout:)` ran out of time with events still unacknowledged.
    public static let flushTimedOut = Self("flush timed out", .unavailable)
    /// The server (or a proxy) answered the WebSocket upgrade with something other than 101.
    public static let upgradeRefused = Self("upgrade refused", .unavailable)
    /// The connection and its WebSocket upgrade did not complete in time.
    public static let upgradeTimedOut = Self("upgrade timed out", .unavailable)
    /// The server sent a message the live protocol does not have (a binary one).
    public static let unexpectedMessage = Self("unexpected message", .unavailable)
    /// The server could not be asked what it holds before time ran out.
    public static let serverUnreachable = Self("server unreachable", .unavailable)
    /// The server refused the token, and the token provider had no other.
    public static let tokenRefused = Self("token refused", .key)
    /// The server's URL is not an http(s) URL.
    public static let invalidServerURL = Self("invalid server URL", .usage)
}
