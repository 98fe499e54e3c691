import Compliance
import EventLog
import Foundation
import Hummingbird
import SessionServer
import SessionModel
import TestSupport
import Testing

/// A store with a server over it and a token of each scope, for tests that drive the routes in-process
/// (`RouterClient`: no socket).
struct ServerFixture {
    let log: EventLog
    let server: SessionServer
    var tokens: [TokenScope: String] = [:]

    init(log: EventLog, configuration: ServerConfiguration = ServerConfiguration()) async throws {
        self.log = log
        server = SessionServer(log: log, configuration: configuration)
        for scope in TokenScope.allCases {
            tokens[scope] = try await AccessTokens(log: log).create(scope: scope, name: scope.rawValue, actor: "test", at: Self.now).secret
        }
    }

    static var now: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    func bearer(_ scope: TokenScope) -> HTTPFields { bearer(tokens[scope]!) }
    func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)"] }

    /// A session of dana's and one of eli's, appended, and a read token limited to dana's.
    func danaAndEli() async throws -> (dana: UUID, eli: UUID, limited: String) {
        let dana = sessionLines(subject: "dana"), eli = sessionLines(subject: "eli")
        let limited = try await readToken(limitedTo: "dana")
        try await test { client async throws -> Void in
            let appended = try await client.execute(uri: "/v1/events", method: .post, headers: bearer(.ingest),
                                                    body: ByteBuffer(string: dana.body + eli.body))
            #expect(appended.status == .ok)
        }
        return (dana.session, eli.session, limited)
    }

    /// A read token limited to the sessions of `subject` (a raw user id).
    func readToken(limitedTo subject: String) async throws -> String {
        try await AccessTokens(log: log).create(scope: .read, subjects: [SubjectHash(bytes: log.identifierHash(subject))!],
                                                name: "\(subject)'s app", actor: "test", at: Self.now).secret
    }

    /// Runs `body` with a client of the routes.
    func test<Value>(_ body: (RouterClient<ServerContext>) async throws -> Value) async throws -> Value {
        try await body(RouterClient(server.router()))
    }
}

/// Runs `body` with a fresh store and a server fixture over it.
func withServer<R>(_ configuration: ServerConfiguration = ServerConfiguration(), _ body: (ServerFixture) async throws -> R) async throws -> R {
    try await withTemporaryStore { store in
        let fixture = try await ServerFixture(log: try store.create(), configuration: configuration)
        return try await body(fixture)
    }
}

/// NDJSON of a session with a consent grant and a committed segment, event ids given (so a resend is idempotent).
func sessionLines(_ session: UUID = UUID(), subject: String = "user-1", text: String = "Hello world") -> (session: UUID, body: String) {
    let id = session.uuidString.lowercased()
    let body = """
        {"type":"session.started","session":"\(id)","id":"\(UUID().uuidString.lowercased())","at":"2026-11-21T10:00:00.000Z","subject":"\(subject)","locale":"en-US"}
        {"type":"consent.granted","session":"\(id)","id":"\(UUID().uuidString.lowercased())","at":"2026-11-21T10:00:00.100Z","subject":"\(subject)","consent_type":"transcription","method":"in_app_prompt"}
        {"type":"transcript.committed","session":"\(id)","id":"\(UUID().uuidString.lowercased())","at":"2026-11-21T10:00:02.000Z","segment":"1","text":"\(text)","start_ms":0,"end_ms":1200}

        """
    return (session, body)
}

extension TestResponse {
    /// The body as a JSON object.
    var object: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:]
    }

    var text: String { String(buffer: body) }
}

/// Holds the store's write lock in a transaction of its own, on a thread of its own, until released.
final class WriteLockHolder: @unchecked Sendable {
    // @unchecked: the semaphores are thread-safe.
    private let taken = DispatchSemaphore(value: 0)
    private let release_ = DispatchSemaphore(value: 0)

    init(log: EventLog) {
        Thread.detachNewThread { [taken, release_] in
            try? log.updateView("write-lock-holder") { _ in
                taken.signal()
                release_.wait()
            }
        }
    }

    /// Returns once the transaction holds the lock; fails the test after a minute (the transaction could not begin).
    func held() async throws {
        for _ in 0..<6_000 {
            if taken.wait(timeout: .now()) == .success { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("the transaction holding the write lock did not begin")
        throw CancellationError()
    }

    func release() { release_.signal() }
}

/// `body`'s value, or nil when it has not finished within `seconds`: then `onExpiry` runs (to unblock
/// `body`, which the group waits for) and `body` is cancelled.
func withDeadline<T: Sendable>(seconds: Int, onExpiry: @escaping @Sendable () -> Void,
                                       _ body: @escaping @Sendable () async throws -> T) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            onExpiry()
            return nil
        }
        let first = try await group.next()!
        group.cancelAll()
        return first
    }
}

extension ServerFixture {
    /// Runs the server on a socket (a free loopback port, as `serve` runs it) while `body` runs with its
    /// port; stops it afterwards, also when `body` throws.
    func listening<R: Sendable>(_ body: @escaping @Sendable (Int) async throws -> R) async throws -> R {
        let (ports, port) = AsyncStream<Int>.makeStream()
        let running = Task { [server] in try await server.run(identityKeys: nil) { port.yield($0) } }
        defer { running.cancel() }
        guard let listening = await ports.first(where: { _ in true }) else { throw CancellationError() }
        let result = try await body(listening)
        running.cancel()
        _ = await running.result
        return result
    }
}
