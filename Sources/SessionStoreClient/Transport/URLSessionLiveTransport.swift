#if canImport(Darwin)
import Foundation

/// The live WebSocket over URLSession: for Apple platforms. (On Linux URLSession's WebSocket fails with "WebSockets
/// not supported by libcurl"; ``NIOLiveTransport`` serves there.)
public struct URLSessionLiveTransport: LiveTransport {
    private let session: URLSession

    public init(session: URLSession = URLSession(configuration: .default)) {
        self.session = session
    }

    public func withConnection(to url: URL, headers: [String: String], _ body: @escaping @Sendable (any LiveConnection) async throws -> Void) async throws {
        var request = URLRequest(url: url)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let task = session.webSocketTask(with: request)
        task.maximumMessageSize = 8 << 20
        task.resume()
        defer { task.cancel(with: .normalClosure, reason: nil) }
        do {
            try await body(Connection(url: url, task: task))
        } catch let error as URLError where error.code == .badServerResponse {
            // URLSession's word for an upgrade answered with anything but 101.
            throw ClientError.upgradeRefused(url)
        }
    }

    private struct Connection: LiveConnection {
        let url: URL
        let task: URLSessionWebSocketTask

        func send(_ text: String) async throws {
            try await task.send(.string(text))
        }

        func receive() async throws -> String? {
            do {
                switch try await task.receive() {
                case .string(let text): return text
                case .data: throw ClientError.unexpectedMessage(url)
                @unknown default: throw ClientError.unexpectedMessage(url)
                }
            } catch let error as URLError where error.code == .badServerResponse {
                throw ClientError.upgradeRefused(url)
            } catch where task.closeCode != .invalid {
                return nil
            }
        }
    }
}
#endif
