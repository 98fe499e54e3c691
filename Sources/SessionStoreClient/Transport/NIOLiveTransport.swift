#if canImport(HummingbirdWSClient)
import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import Synchronization

/// The live WebSocket over swift-websocket's NIO client: for Linux, where URLSession has no WebSocket.
public struct NIOLiveTransport: LiveTransport {
    /// The largest message the server sends is an acknowledgement or a problem; 1 MiB is ample.
    private let maximumMessageBytes = 1 << 20
    private let logger: Logger

    public init(logger: Logger = Logger(label: "sessionstore.client.websocket", factory: { _ in SwiftLogNoOpLogHandler() })) {
        self.logger = logger
    }

    public func withConnection(to url: URL, headers: [String: String], _ body: @escaping @Sendable (any LiveConnection) async throws -> Void) async throws {
        var fields = HTTPFields()
        for (name, value) in headers {
            if let name = HTTPField.Name(name) { fields[name] = value }
        }
        let outcome = Mutex<Result<Void, any Error>?>(nil)
        let maximumMessageBytes = maximumMessageBytes
        do {
            try await WebSocketClient.connect(
                url: url.absoluteString,
                configuration: WebSocketClientConfiguration(maxFrameSize: 8 << 20, additionalHeaders: fields),
                logger: logger
            ) { inbound, outbound, _ in
                let connection = Connection(url: url, inbound: inbound.messages(maxSize: maximumMessageBytes).makeAsyncIterator(), outbound: outbound)
                do {
                    try await body(connection)
                    outcome.withLock { $0 = .success(()) }
                } catch {
                    outcome.withLock { $0 = .failure(error) }
                    throw error
                }
            }
        } catch let error as WebSocketClientError where error == .webSocketUpgradeFailed {
            throw ClientError.upgradeRefused(url)
        } catch {
            if let failure = outcome.withLock({ $0 }), case .failure(let inner) = failure { throw inner }
            throw error
        }
        switch outcome.withLock({ $0 }) {
        case .failure(let error): throw error
        case .success: return
        case nil: throw CancellationError()
        }
    }

    private final class Connection: LiveConnection, @unchecked Sendable {
        // @unchecked: the iterator is used by the one receiving task only (LiveConnection's contract).
        private let url: URL
        private var inbound: WebSocketInboundMessageStream.AsyncIterator
        private let outbound: WebSocketOutboundWriter

        init(url: URL, inbound: WebSocketInboundMessageStream.AsyncIterator, outbound: WebSocketOutboundWriter) {
            self.url = url
            self.inbound = inbound
            self.outbound = outbound
        }

        func send(_ text: String) async throws {
            try await outbound.write(.text(text))
        }

        func receive() async throws -> String? {
            switch try await inbound.next() {
            case .text(let text): return text
            case .binary: throw ClientError.unexpectedMessage(url)
            case nil: return nil
            }
        }
    }
}
#endif
