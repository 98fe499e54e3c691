import Failures
import Foundation
import Synchronization

/// Everything a session's sync needs, shared by all of a client's sessions.
struct SyncEnvironment: Sendable {
    let server: URL
    let outbox: Outbox
    let transport: any LiveTransport
    let http: ServerHTTP
    let tokens: TokenSource
    let options: SyncOptions
    let notices: Notices
    let metrics: ClientMetrics
    /// When each event still in the outbox was appended in this process: its acknowledgement's latency.
    let appendedAt: Locked<[UInt64: ContinuousClock.Instant]>
}

/// Why a connection ended before its session was sent whole.
enum SyncFailure: Error {
    case answer(ServerAnswer)
    case stalled(String)
    case closed
    case protocolError(String)
}

/// Sends one session's events from the outbox to the server until the session has ended and the server holds all of
/// it, or the server refuses an event: connect, resume from what the server stored, keep a window of events in flight,
/// release each acknowledged one; on failure back off with full jitter and try again (docs/CLIENT.md, "Sync").
final class SessionSync: Sendable {
    let session: UUID
    private let environment: SyncEnvironment
    /// An append, or an acknowledgement that made room in the window.
    let progressed = Signal()
    /// The app says the network changed: a backoff ends at once.
    let networkChanged = Signal()
    private let batchesOnly = Atomic<Bool>(false)
    /// How long the oldest event in flight may wait for its answer: doubled (up to 8 times the option) after each
    /// connection given up for it, back to the option once an answer comes, so that a server slowed by load is not
    /// abandoned over and over with nothing ever acknowledged.
    private let stallTimeout: Locked<Duration>

    init(session: UUID, environment: SyncEnvironment) {
        self.session = session
        self.environment = environment
        stallTimeout = Locked(environment.options.acknowledgementTimeout)
    }

    private var outbox: Outbox { environment.outbox }

    func run() async {
        var attempt = 0
        var random = SystemRandomNumberGenerator()
        while !Task.isCancelled {
            if outbox.isFinished(session) { return state(.idle) }
            if let refusal = outbox.refusal(of: session) { return state(.stopped(because: String(decoding: refusal.problem, as: UTF8.self))) }
            if outbox.pending(of: session, limit: 1).isEmpty {
                state(.idle)
                await progressed.wait()
                continue
            }
            state(.connecting)
            var wait: Duration?
            let reason: String
            do {
                var token = try await environment.tokens.current()
                do {
                    try await (batchesOnly.load(ordering: .relaxed) ? sendBatches(token: token) : stream(token: token))
                    attempt = 0
                    continue
                } catch SyncFailure.answer(.unauthorized) where attempt == 0 {
                    token = try await environment.tokens.replacing(token)
                    attempt += 1
                    continue
                } catch SyncFailure.answer(.unauthorized) {
                    _ = try await environment.tokens.replacing(token)
                    reason = "the server refused the token (401)"
                }
            } catch SyncFailure.answer(.retryLater(let delay)) {
                wait = delay
                reason = "the server asked to retry later (429 or 503, Retry-After)"
            } catch SyncFailure.answer(.upgradeBlocked) {
                batchesOnly.store(true, ordering: .relaxed)
                attempt = 0
                continue
            } catch SyncFailure.answer(.serverFailed(let why)) {
                reason = "the server failed: \(why)"
            } catch SyncFailure.answer(.refused(_, let problem)) {
                reason = "the server refused the connection: \(problem)"
            } catch SyncFailure.answer(.unauthorized) {
                reason = "the server refused the token (401)"
            } catch SyncFailure.stalled(let why) {
                let limit = environment.options.acknowledgementTimeout * 8
                stallTimeout.withLock { $0 = min($0 * 2, limit) }
                reason = why
            } catch SyncFailure.closed {
                reason = "the server closed the connection"
            } catch SyncFailure.protocolError(let why) {
                reason = why
            } catch is CancellationError {
                return
            } catch {
                reason = "the connection failed: \(error)"
            }
            environment.metrics.failures.increment()
            let delay = wait ?? environment.options.backoff.delay(attempt: attempt, using: &random)
            attempt += 1
            state(.backingOff(retryIn: delay, because: reason))
            await networkChanged.wait(upTo: delay)
        }
    }

    private func state(_ state: ConnectionState) {
        environment.notices.send(.state(session: session, state))
    }

    // MARK: The live WebSocket

    /// Events sent on this connection and not yet answered, in order.
    private struct Flight {
        var sent: [(entry: Outbox.Entry, at: ContinuousClock.Instant)] = []
        var head = 0
        /// Answers taken on this connection: the server numbers its answers from 1 (`seq`).
        var answeredCount = 0
        var lastSent: UInt64?
        var lastActivity = ContinuousClock.now

        var count: Int { sent.count - head }

        mutating func answered() -> (entry: Outbox.Entry, at: ContinuousClock.Instant)? {
            guard head < sent.count else { return nil }
            defer {
                head += 1
                answeredCount += 1
                if head > 1024 { sent.removeFirst(head); head = 0 }
            }
            return sent[head]
        }
    }

    private func stream(token: String) async throws {
        let url = environment.server.liveURL(of: session)
        do {
            try await environment.transport.withConnection(to: url, headers: ["Authorization": "Bearer \(token)"]) { connection in
                try await self.converse(over: connection)
            }
        } catch ClientError.Code.upgradeRefused {
            throw SyncFailure.answer(await environment.http.whyRefused(url, token: token))
        }
    }

    private func converse(over connection: any LiveConnection) async throws {
        let hello = try await withDeadline(stallTimeout.withLock { $0 }, "the server did not say hello") {
            try await connection.receive()
        }
        guard let hello = hello.flatMap(LiveHello.init) else { throw SyncFailure.protocolError("the server's first message is not its hello") }
        if let last = hello.lastEventID {
            let released = try outbox.acknowledge(session, upTo: last)
            try acknowledged(released, positions: released.map { $0.id == last ? hello.lastPosition : nil }, duplicate: true, sentAt: ContinuousClock.now,
                             releasing: false)
        }
        environment.metrics.connections.increment()
        state(.connected)
        let flight = Locked(Flight())
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.send(over: connection, flight) }
            group.addTask { try await self.receive(over: connection, flight) }
            group.addTask { try await self.watch(flight) }
            try await group.next()
            group.cancelAll()
        }
    }

    /// Sends what the outbox holds after the last event sent, while the window has room; waits for appends and
    /// acknowledgements. Ends only by throwing (cancelled, or the connection failed).
    private func send(over connection: any LiveConnection, _ flight: Locked<Flight>) async throws {
        let window = environment.options.window
        while true {
            try Task.checkCancellation()
            let (room, after) = flight.withLock { (window - $0.count, $0.lastSent) }
            let next = room > 0 ? outbox.pending(of: session, after: after, limit: room) : []
            if next.isEmpty {
                await progressed.wait()
                continue
            }
            for entry in next {
                let line = try outbox.line(of: entry)
                flight.withLock {
                    $0.sent.append((entry, ContinuousClock.now))
                    $0.lastSent = entry.sequence
                    $0.lastActivity = ContinuousClock.now
                }
                try await connection.send(String(decoding: line, as: UTF8.self))
            }
        }
    }

    /// Takes each answer in order: an acknowledgement releases its event; a refusal stops the session. Returns once
    /// the session has ended and the server holds all of it.
    private func receive(over connection: any LiveConnection, _ flight: Locked<Flight>) async throws {
        while let text = try await connection.receive() {
            guard let answer = Self.object(text), let sequence = answer["seq"] as? Int else {
                throw SyncFailure.protocolError("the server sent a message that is neither an acknowledgement nor a refusal")
            }
            guard let (entry, sentAt) = flight.withLock({ flight -> (Outbox.Entry, ContinuousClock.Instant)? in
                flight.lastActivity = ContinuousClock.now
                return flight.answeredCount + 1 == sequence ? flight.answered() : nil
            }) else {
                throw SyncFailure.protocolError("the server answered message \(sequence), which is not the next one sent")
            }
            if let problem = answer["problem"] {
                try refuse(entry, problem: (try? JSONSerialization.data(withJSONObject: problem)) ?? Data())
                return
            }
            let position = (answer["position"] as? NSNumber)?.uint64Value
            try acknowledged([entry], positions: [position], duplicate: answer["duplicate"] as? Bool ?? false, sentAt: sentAt)
            stallTimeout.withLock { $0 = environment.options.acknowledgementTimeout }
            if outbox.isFinished(session) { return }
        }
        throw SyncFailure.closed
    }

    /// Ends the connection when the oldest event in flight has waited too long (a server that stopped answering),
    /// or when it has had nothing to do for the idle time.
    private func watch(_ flight: Locked<Flight>) async throws {
        let options = environment.options
        while true {
            try await Task.sleep(for: .milliseconds(250))
            let (oldest, idleSince, inFlight) = flight.withLock { ($0.count > 0 ? $0.sent[$0.head].at : nil, $0.lastActivity, $0.count) }
            let limit = stallTimeout.withLock { $0 }
            if let oldest, ContinuousClock.now - oldest > limit {
                throw SyncFailure.stalled("no acknowledgement for \(limit)")
            }
            if inFlight == 0, ContinuousClock.now - idleSince > options.idleTimeout, outbox.pending(of: session, limit: 1).isEmpty {
                return
            }
        }
    }

    // MARK: Batches over POST /v1/events

    private func sendBatches(token: String) async throws {
        state(.connected)
        while true {
            let entries = outbox.pending(of: session, limit: environment.options.batchEvents)
            if entries.isEmpty { return }
            let sentAt = ContinuousClock.now
            let outcome = await environment.http.post(try entries.map(outbox.line(of:)), token: token)
            if outcome.stored {
                try acknowledged(entries, positions: outcome.positions.map { $0 }, duplicate: false, sentAt: sentAt)
            } else if let line = outcome.refusedLine {
                guard entries.indices.contains(line - 1) else { throw SyncFailure.protocolError("the server refused line \(line) of a batch of \(entries.count)") }
                return try refuse(entries[line - 1], problem: outcome.problem)
            } else {
                throw SyncFailure.answer(outcome.answer ?? .serverFailed("no answer"))
            }
        }
    }

    // MARK: Answers

    /// Releases `entries` (unless the outbox did already: `releasing` false) and tells the app.
    private func acknowledged(_ entries: [Outbox.Entry], positions: [UInt64?], duplicate: Bool, sentAt: ContinuousClock.Instant,
                              releasing: Bool = true) throws {
        guard let last = entries.last else { return }
        if releasing { try outbox.acknowledge(session, through: last.sequence) }
        let now = ContinuousClock.now
        let appended = environment.appendedAt.withLock { times in entries.map { times.removeValue(forKey: $0.sequence) } }
        for (index, entry) in entries.enumerated() {
            let latency = now - (appended[index] ?? sentAt)
            environment.metrics.acknowledgement.recordNanoseconds(Int64(latency.seconds * 1e9))
            environment.notices.send(.acknowledged(session: session, event: entry.id, position: positions.indices.contains(index) ? positions[index] : nil,
                                                   duplicate: duplicate, latency: latency))
        }
        environment.metrics.acknowledged.increment(by: entries.count)
        environment.metrics.outbox(outbox.depth)
        progressed.notify()
    }

    private func refuse(_ entry: Outbox.Entry, problem: Data) throws {
        try outbox.refuse(session, sequence: entry.sequence, problem: problem)
        environment.metrics.refused.increment()
        let text = String(decoding: problem, as: UTF8.self)
        environment.notices.send(.refused(session: session, event: entry.id, problem: text))
        state(.stopped(because: text))
    }

    private static func object(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    private func withDeadline<T: Sendable>(_ limit: Duration, _ failure: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: limit)
                throw SyncFailure.stalled(failure)
            }
            let first = try await group.next()!
            group.cancelAll()
            return first
        }
    }
}
