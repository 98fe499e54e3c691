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
    private let handshakeTimeout: Duration
    private let logger: Logger

    /// `handshakeTimeout`: how long the TCP connection and the upgrade may take.
    public init(handshakeTimeout: Duration = .seconds(10),
                logger: Logger = Logger(label: "sessionstore.client.websocket", factory: { _ in SwiftLogNoOpLogHandler() })) {
        self.handshakeTimeout = handshakeTimeout
        self.logger = logger
    }

    /// swift-nio's typed client upgrade handler (2.101) waits for the upgrade's answer even when the connection closes
    /// before it comes (a server killed mid-handshake: no error, only EOF), and the wait does not end on cancellation.
    /// So the connection runs in a task of its own, raced against the handshake timeout: when the timeout wins, the
    /// caller gets a failure and goes on; the stuck task, on a closed channel, is left behind.
    public func withConnection(to url: URL, headers: [String: String], _ body: @escaping @Sendable (any LiveConnection) async throws -> Void) async throws {
        let race = HandshakeRace()
        let connecting = Task {
            do {
                try await connect(to: url, headers: headers) { connection in
                    guard race.open() else { throw CancellationError() }
                    try await body(connection)
                }
                race.finish(.success(()))
            } catch {
                race.finish(.failure(error))
            }
        }
        let timer = Task { [handshakeTimeout] in
            try await Task.sleep(for: handshakeTimeout)
            race.expire(ClientError(.upgradeTimedOut, "the connection to \(url.absoluteString) did not open within \(handshakeTimeout)"))
        }
        defer { timer.cancel() }
        try await withTaskCancellationHandler {
            try await race.outcome()
        } onCancel: {
            connecting.cancel()
            race.finish(.failure(CancellationError()))
        }
    }

    private func connect(to url: URL, headers: [String: String], _ body: @escaping @Sendable (any LiveConnection) async throws -> Void) async throws {
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

    /// The first of: the connection's end, the handshake's timeout (only before the connection opened), cancellation.
    private final class HandshakeRace: Sendable {
        private struct State {
            var opened = false
            var result: Result<Void, any Error>?
            var waiter: CheckedContinuation<Void, any Error>?
        }

        private let state = Mutex(State())

        /// Marks the connection open; false when the race was already decided (the timeout won).
        func open() -> Bool {
            state.withLock { state in
                guard state.result == nil else { return false }
                state.opened = true
                return true
            }
        }

        func finish(_ result: Result<Void, any Error>) { decide(result, onlyBeforeOpening: false) }

        func expire(_ error: any Error) { decide(.failure(error), onlyBeforeOpening: true) }

        private func decide(_ result: Result<Void, any Error>, onlyBeforeOpening: Bool) {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard state.result == nil, !(onlyBeforeOpening && state.opened) else { return nil }
                state.result = result
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(with: result)
        }

        func outcome() async throws {
            try await withCheckedThrowingContinuation { continuation in
                let decided = state.withLock { state -> Result<Void, any Error>? in
                    if state.result == nil { state.waiter = continuation }
                    return state.result
                }
                if let decided { continuation.resume(with: decided) }
            }
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
