import Compliance
import EventLog
import Foundation
import SessionLog
import SessionServer
@testable import SessionStoreClient
import Synchronization
import TestSupport
import Testing

/// A store with `sessionstore serve` over it on a loopback port, and an ingest token: the server a client records to.
struct LiveServer: Sendable {
    let log: EventLog
    let token: String
    var configuration = ServerConfiguration()

    init(log: EventLog) async throws {
        self.log = log
        token = try await AccessTokens(log: log).create(scope: .ingest, name: "app", actor: "test", at: Int64(Date().timeIntervalSince1970 * 1000)).secret
        configuration.port = 0
        configuration.spoolDirectory = Scratch.url("spool").path
        try? FileManager.default.createDirectory(atPath: configuration.spoolDirectory, withIntermediateDirectories: true)
    }

    /// Serves on `port` (0: a free one) while `body` runs with the port; stops the server afterwards, also on failure.
    func serving<R: Sendable>(port: Int = 0, _ body: @escaping @Sendable (Int) async throws -> R) async throws -> R {
        var configuration = configuration
        configuration.port = port
        let server = SessionServer(log: log, configuration: configuration)
        let (ports, ready) = AsyncStream<Int>.makeStream()
        let running = Task { try await server.run(identityKeys: nil) { ready.yield($0) } }
        defer { running.cancel() }
        guard let listening = await ports.first(where: { _ in true }) else { throw CancellationError() }
        do {
            let result = try await body(listening)
            running.cancel()
            _ = await running.result
            return result
        } catch {
            running.cancel()
            _ = await running.result
            throw error
        }
    }

    /// The ids of the events the store holds of `session`, in stream order.
    func storedIDs(of session: UUID) throws -> [UUID] {
        try log.readStream(SessionStreams.session(session)).map(\.id)
    }
}

func withLiveServer<R>(_ body: (LiveServer) async throws -> R) async throws -> R {
    try await withTemporaryStore { store in try await body(try await LiveServer(log: try store.create())) }
}

/// A client of `port` over a fresh outbox (or `directory`), with fast retries for tests.
func makeClient(port: Int, token: @escaping @Sendable (String?) async throws -> String, directory: URL = outboxDirectory(),
                transport: (any LiveTransport)? = nil, configure: (inout SyncOptions) -> Void = { _ in }) throws -> SessionStoreClient {
    var options = SyncOptions()
    options.backoff = Backoff(base: .milliseconds(20), cap: .milliseconds(300))
    // Long enough for a machine running every suite at once; the tests of stalls set their own.
    options.acknowledgementTimeout = .seconds(30)
    configure(&options)
    return try SessionStoreClient(server: URL(string: "http://127.0.0.1:\(port)")!, outbox: OutboxConfiguration(directory: directory, key: testKey),
                                  transport: transport, options: options, tokens: token)
}

/// The events of a short dictation session: started, consent, a recording of `chunks` 100 ms chunks at 16 kHz with a
/// partial after each, a committed segment, ended.
func dictation(chunks: Int = 5, subject: String = "user-1") -> [LiveEvent] {
    var events: [LiveEvent] = [
        .sessionStarted(subject: subject, locale: "en-GB", device: "test", labels: ["suite": "client"]),
        .consentGranted(subject: subject, consentType: "audio_recording", method: "in_app_prompt"),
        .recordingStarted(recording: "mic", sampleRate: 16_000, channels: 1),
    ]
    for index in 0..<chunks {
        let samples = (0..<1600).map { Int16(truncatingIfNeeded: ($0 * 37 + index * 101) % 4000 - 2000) }
        events.append(.recordingChunk(recording: "mic", index: index, pcm: samples.withUnsafeBytes { Data($0) }))
        events.append(.transcriptPartial(segment: "1", revision: index, text: "hello \(index)", startMs: 0, endMs: (index + 1) * 100))
    }
    events += [
        .recordingStopped(recording: "mic"),
        .transcriptCommitted(segment: "1", text: "Hello world.", startMs: 0, endMs: chunks * 100, confidence: 0.9,
                             words: [.init(word: "Hello", startMs: 0, endMs: 200), .init(word: "world.", startMs: 200, endMs: 400, confidence: 0.8)]),
        .sessionEnded(),
    ]
    return events
}

/// Counts the provider's calls and what each was told.
final class TokenCalls: Sendable {
    let calls = Mutex<[String?]>([])
    func record(_ rejected: String?) { calls.withLock { $0.append(rejected) } }
    var all: [String?] { calls.withLock { $0 } }
}
