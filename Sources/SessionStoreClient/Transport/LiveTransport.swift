import Foundation

/// How the client reaches the live WebSocket (docs/SERVER.md, "Recording live"): a seam, so that Apple platforms use
/// URLSession's WebSocket and Linux a NIO client (URLSession's has no WebSocket there), and tests put a faulty
/// network between.
public protocol LiveTransport: Sendable {
    /// Opens a WebSocket to `url` with `headers`, runs `body` with it, and closes it when `body` returns or throws.
    /// A refused upgrade (any answer but 101) throws ``ClientError/upgradeRefused(_:)``.
    func withConnection(to url: URL, headers: [String: String], _ body: @escaping @Sendable (any LiveConnection) async throws -> Void) async throws
}

/// One open WebSocket: text messages both ways. `receive` is called by one task at a time.
public protocol LiveConnection: Sendable {
    func send(_ text: String) async throws
    /// The next text message, or nil once the server has closed the connection.
    func receive() async throws -> String?
}

extension URL {
    /// The live route of `session` under a server's base URL, as a ws(s) URL.
    func liveURL(of session: UUID) -> URL {
        var components = URLComponents(url: appendingPathComponent("v1/sessions/\(session.uuidString.lowercased())/live"), resolvingAgainstBaseURL: false)!
        components.scheme = components.scheme == "https" ? "wss" : "ws"
        components.queryItems = [URLQueryItem(name: "stop_on_refusal", value: "true")]
        return components.url!
    }
}
