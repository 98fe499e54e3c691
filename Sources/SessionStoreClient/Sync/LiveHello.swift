import Failures
import Foundation

/// The server's first message on a session's live WebSocket: what it holds of the session (docs/SERVER.md).
struct LiveHello: Sendable {
    /// The id of the last event stored, nil when none is.
    var lastEventID: UUID?
    var lastPosition: UInt64?

    init?(_ text: String) {
        guard let fields = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any], fields["session"] != nil else { return nil }
        lastEventID = (fields["last_event_id"] as? String).flatMap(UUID.init(uuidString:))
        lastPosition = (fields["last_position"] as? NSNumber)?.uint64Value
    }
}

extension SessionStoreClient {
    /// The id of the newest event of `session` in the outbox not yet acknowledged; nil when it holds none.
    package func lastUnacknowledged(of session: UUID) -> UUID? {
        environment.outbox.lastUnacknowledged(of: session)
    }

    /// The id of the last event of `session` the server holds (nil: none), as its live hello says, for a tool that
    /// moves stored sessions and must not send again what the server has (`sessionstore push`). After a failure it
    /// backs off and asks again, as the sync does, until `deadline`.
    /// - Throws: ``ClientError`` `tokenRefused` after a second 401, `serverUnreachable` at the deadline.
    package func lastStored(of session: UUID, until deadline: ContinuousClock.Instant) async throws -> UUID? {
        let url = environment.server.liveURL(of: session)
        var random = SystemRandomNumberGenerator()
        var attempt = 0, refusedTokens = 0
        var reason = "no attempt"
        while true {
            let token = try await environment.tokens.current()
            do {
                return try await hello(at: url, token: token).lastEventID
            } catch SyncFailure.answer(.unauthorized) {
                refusedTokens += 1
                guard refusedTokens < 2 else { throw ClientError(.tokenRefused, "the server at \(environment.server.absoluteString) refused the token (401)") }
                _ = try await environment.tokens.replacing(token)
                continue
            } catch SyncFailure.answer(.retryLater(let delay?)) {
                reason = "the server asked to retry later (Retry-After)"
                try await wait(delay, until: deadline, reason)
                continue
            } catch SyncFailure.answer(.refused(_, let problem)) {
                reason = problem
            } catch let failure as SyncFailure {
                reason = "\(failure)"
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                reason = "\(error)"
            }
            try await wait(environment.options.backoff.delay(attempt: attempt, using: &random), until: deadline, reason)
            attempt += 1
        }
    }

    private func wait(_ delay: Duration, until deadline: ContinuousClock.Instant, _ reason: String) async throws {
        guard ContinuousClock.now + delay < deadline else {
            throw ClientError(.serverUnreachable, "the server at \(environment.server.absoluteString) could not say what it holds in time; last: \(reason)")
        }
        try await Task.sleep(for: delay)
    }

    private func hello(at url: URL, token: String) async throws -> LiveHello {
        let answer = Locked<LiveHello?>(nil)
        let limit = environment.options.acknowledgementTimeout
        do {
            try await environment.transport.withConnection(to: url, headers: ["Authorization": "Bearer \(token)"]) { connection in
                let text = try await withThrowingTaskGroup(of: String?.self) { group in
                    group.addTask { try await connection.receive() }
                    group.addTask {
                        try await Task.sleep(for: limit)
                        throw SyncFailure.stalled("the server did not say hello within \(limit)")
                    }
                    defer { group.cancelAll() }
                    return try await group.next()!
                }
                guard let text, let hello = LiveHello(text) else { throw SyncFailure.protocolError("the server's first message is not its hello") }
                answer.withLock { $0 = hello }
            }
        } catch ClientError.Code.upgradeRefused {
            throw SyncFailure.answer(await environment.http.whyRefused(url, token: token))
        }
        guard let hello = answer.withLock({ $0 }) else { throw SyncFailure.closed }
        return hello
    }
}
