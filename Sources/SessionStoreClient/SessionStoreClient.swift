import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Records dictation sessions on the device and sends them to a SessionStore server (docs/CLIENT.md).
///
/// ```swift
/// let client = try SessionStoreClient(server: url, outbox: OutboxConfiguration(directory: dir, key: key)) { rejected in
///     try await myAuth.token(refreshing: rejected != nil)
/// }
/// let session = UUID()
/// try client.append(.sessionStarted(subject: "user-4711", locale: "en-GB"), to: session)   // durable on the device
/// try client.append(.recordingChunk(recording: "mic", index: 0, pcm: samples), to: session)
/// try client.append(.sessionEnded(), to: session)
/// try await client.flush(timeout: .seconds(30))                                           // stored on the server
/// ```
///
/// An append returns once its event is sealed and synced in the outbox; the client sends it in the background over
/// the session's live WebSocket, resends what was not acknowledged after any failure (the server stores each event
/// once: its id), and releases it when the server has stored it. A client started again over the same outbox
/// sends what the last one left.
public final class SessionStoreClient: Sendable {
    /// Gives a bearer token for the server: `rejected` is nil the first time, and the token the server refused (401)
    /// when asked again.
    public typealias TokenProvider = @Sendable (_ rejected: String?) async throws -> String

    let environment: SyncEnvironment
    private let syncs = Mutex<[UUID: (sync: SessionSync, task: Task<Void, Never>)]>([:])

    /// Opens (or creates) the outbox and starts sending what it holds.
    public init(server: URL, outbox: OutboxConfiguration, transport: (any LiveTransport)? = nil, options: SyncOptions = SyncOptions(),
                tokens: @escaping TokenProvider) throws {
        guard let scheme = server.scheme?.lowercased(), scheme == "http" || scheme == "https", server.host != nil else {
            throw ClientError(.invalidServerURL, "the server's URL must be an http or https URL with a host, not \(server.absoluteString)")
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = options.requestTimeout.seconds
        environment = SyncEnvironment(
            server: server, outbox: try Outbox(outbox), transport: transport ?? Self.defaultTransport(options),
            http: ServerHTTP(base: server, session: URLSession(configuration: configuration), timeout: options.requestTimeout.seconds),
            tokens: TokenSource(tokens), options: options, notices: Notices(), metrics: ClientMetrics(), appendedAt: Locked([:]))
        environment.metrics.outbox(environment.outbox.depth)
        for session in environment.outbox.sessionsToSend { sync(of: session).progressed.notify() }
    }

    deinit {
        for (_, task) in syncs.withLock({ Array($0.values) }) { task.cancel() }
    }

    private static func defaultTransport(_ options: SyncOptions) -> any LiveTransport {
        #if canImport(Darwin)
        URLSessionLiveTransport()
        #else
        NIOLiveTransport(handshakeTimeout: options.acknowledgementTimeout)
        #endif
    }

    /// Appends `event` to `session` and returns once it is durable on the device (not once it is sent). Returns the
    /// event's id. Throws ``ClientError`` when the outbox is full, the session has ended or was refused, or the
    /// event is not one the server takes; nothing is written then.
    @discardableResult
    public func append(_ event: LiveEvent, to session: UUID, at time: Date = Date(), id: UUID = UUID()) throws -> UUID {
        try append(line: event.line(session: session, at: time, id: id), id: id, session: session, closes: event.endsSession)
        return id
    }

    /// Appends an ingest line (docs/INGEST.md) that already names `session` and `id`: for tools that move stored
    /// sessions (`sessionstore push`).
    package func append(line: Data, id: UUID, session: UUID, closes: Bool) throws {
        let entry = try environment.outbox.append(line: line, id: id, session: session, closes: closes)
        environment.appendedAt.withLock { $0[entry.sequence] = .now }
        environment.metrics.appended.increment()
        environment.metrics.outbox(environment.outbox.depth)
        sync(of: session).progressed.notify()
    }

    /// Waits until the server has stored every event appended (or a refusal stopped its session), up to `timeout`;
    /// throws ``ClientError`` (`flushTimedOut`) with what is left when time runs out.
    public func flush(timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while !environment.outbox.sessionsToSend.isEmpty {
            guard ContinuousClock.now < deadline else {
                let depth = environment.outbox.depth
                throw ClientError(.flushTimedOut, "\(depth.events) events (\(depth.bytes) bytes) were not acknowledged within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Gives up what is left of `session` on this device (after a refusal, say): none of it is sent.
    public func discard(_ session: UUID) throws {
        try environment.outbox.discard(session)
        environment.metrics.outbox(environment.outbox.depth)
    }

    /// Tells the client the network changed (a path came back, Wi-Fi to cellular): every session backing off tries
    /// again at once.
    public func networkChanged() {
        for (sync, _) in syncs.withLock({ Array($0.values) }) { sync.networkChanged.notify() }
    }

    /// Every notice from now on: connection states, acknowledgements with their latency, refusals.
    public func notices() -> AsyncStream<SyncNotice> { environment.notices.stream() }

    /// The outbox's depth and each session's connection state.
    public var status: ClientStatus {
        let depth = environment.outbox.depth
        return ClientStatus(outboxEvents: depth.events, outboxBytes: depth.bytes, sessions: environment.notices.currentStates)
    }

    /// The refusal that stopped `session`: the server's problem (RFC 9457 JSON), if it refused one of its events.
    public func refusal(of session: UUID) -> String? {
        environment.outbox.refusal(of: session).map { String(decoding: $0.problem, as: UTF8.self) }
    }

    /// Stops sending; what is not acknowledged stays in the outbox for the next client over it.
    public func close() async {
        let running = syncs.withLock { syncs in
            defer { syncs = [:] }
            return Array(syncs.values)
        }
        for (_, task) in running { task.cancel() }
        for (_, task) in running { await task.value }
        environment.notices.finish()
    }

    private func sync(of session: UUID) -> SessionSync {
        syncs.withLock { syncs in
            if let running = syncs[session] { return running.sync }
            let sync = SessionSync(session: session, environment: environment)
            let task = Task { [weak self] in
                await sync.run()
                self?.syncs.withLock { syncs in
                    if syncs[session]?.sync === sync { syncs[session] = nil }
                }
            }
            syncs[session] = (sync, task)
            return sync
        }
    }
}

/// What the client holds and how each session's sync stands.
public struct ClientStatus: Sendable, Equatable {
    /// Events appended and not yet acknowledged, and the bytes of their records.
    public var outboxEvents: Int
    public var outboxBytes: Int
    public var sessions: [UUID: ConnectionState]
}
