import EventLog
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SessionLog
import SessionServer
@testable import SessionStoreClient
import TestSupport
import Testing

@Suite struct ClientSyncTests {
    @Test func aSessionAppendedOnTheDeviceIsStoredWholeInOrderAndTheOutboxEmpties() async throws {
        try await withLiveServer { server in
            try await server.serving { port in
                let client = try makeClient(port: port) { _ in server.token }
                let session = UUID()
                var ids: [UUID] = []
                for event in dictation(chunks: 20) { ids.append(try client.append(event, to: session)) }
                try await client.flush(timeout: .seconds(240))
                #expect(try server.storedIDs(of: session) == ids)
                #expect(client.status.outboxEvents == 0)
                await client.close()
            }
        }
    }

    @Test func eachAcknowledgementIsToldWithItsLatencyAndStatesGoFromConnectingToConnected() async throws {
        try await withLiveServer { server in
            try await server.serving { port in
                let client = try makeClient(port: port) { _ in server.token }
                let notices = client.notices()
                let session = UUID()
                let ids = try dictation(chunks: 2).map { try client.append($0, to: session) }
                try await client.flush(timeout: .seconds(240))
                await client.close()
                var acknowledged: [UUID] = [], states: [ConnectionState] = []
                for await notice in notices {
                    switch notice {
                    case .acknowledged(_, let event, let position, _, let latency):
                        acknowledged.append(event)
                        #expect((position ?? 1) > 0 && latency > .zero)
                    case .state(_, let state): states.append(state)
                    case .refused: Issue.record("nothing was refused")
                    }
                }
                #expect(acknowledged == ids)
                #expect(states.starts(with: [.connecting, .connected]))
            }
        }
    }

    @Test func aClientStartedAgainSendsWhatTheLastLeftAndNothingIsStoredTwice() async throws {
        try await withLiveServer { server in
            let directory = outboxDirectory()
            let session = UUID()
            let events = dictation(chunks: 10)
            let ids = events.map { _ in UUID() }
            let recordedAt = Date(timeIntervalSince1970: 1_800_000_000)
            // Recorded with the server away: everything waits in the outbox.
            do {
                let offline = try makeClient(port: 9, token: { _ in server.token }, directory: directory)
                for (event, id) in zip(events, ids) { try offline.append(event, to: session, at: recordedAt, id: id) }
                #expect(offline.status.outboxEvents == events.count)
                await offline.close()
            }
            try await server.serving { port in
                // Half of the session reached the server some other way before (a lost acknowledgement, say).
                let first = try makeClient(port: port, token: { _ in server.token }, directory: outboxDirectory())
                for (event, id) in zip(events, ids).prefix(events.count / 2) { try first.append(event, to: session, at: recordedAt, id: id) }
                try await first.flush(timeout: .seconds(240))
                await first.close()

                let again = try makeClient(port: port, token: { _ in server.token }, directory: directory)
                try await again.flush(timeout: .seconds(240))
                #expect(try server.storedIDs(of: session) == ids)
                #expect(again.status.outboxEvents == 0)
                await again.close()
            }
        }
    }

    @Test func aRefusedEventStopsItsSessionAndNothingAfterItIsStored() async throws {
        try await withLiveServer { server in
            try await server.serving { port in
                let client = try makeClient(port: port) { _ in server.token }
                let notices = client.notices()
                let session = UUID()
                let good = try client.append(.sessionStarted(subject: "u", locale: "en-GB"), to: session)
                // A chunk of a recording never started: the server refuses it (422).
                let bad = try client.append(.recordingChunk(recording: "nowhere", index: 0, pcm: Data(count: 320)), to: session)
                for index in 0..<5 { try client.append(.transcriptPartial(segment: "1", revision: index, text: "x", startMs: 0, endMs: 10), to: session) }
                try await client.flush(timeout: .seconds(240))
                #expect(try server.storedIDs(of: session) == [good])
                let problem = try #require(client.refusal(of: session))
                #expect(problem.contains("recording"))
                #expect(throws: ClientError.self) { try client.append(.sessionEnded(), to: session) }
                #expect(client.status.outboxEvents == 6)
                try client.discard(session)
                #expect(client.status.outboxEvents == 0)
                await client.close()
                var refusedEvent: UUID?
                for await notice in notices { if case .refused(_, let event, _) = notice { refusedEvent = event } }
                #expect(refusedEvent == bad)
            }
        }
    }

    @Test func aRefusedTokenIsAskedForAgainAndTheSessionGoesOn() async throws {
        try await withLiveServer { server in
            try await server.serving { port in
                let calls = TokenCalls()
                let client = try makeClient(port: port) { rejected in
                    calls.record(rejected)
                    return rejected == nil ? "expired-token" : server.token
                }
                let session = UUID()
                let ids = try dictation(chunks: 2).map { try client.append($0, to: session) }
                try await client.flush(timeout: .seconds(240))
                #expect(try server.storedIDs(of: session) == ids)
                #expect(calls.all == [nil, "expired-token"])
                await client.close()
            }
        }
    }

    @Test func aServerStoppedAndStartedAgainMidSessionGetsTheWholeSessionOnce() async throws {
        try await withLiveServer { server in
            let session = UUID()
            let events = dictation(chunks: 30)
            let directory = outboxDirectory()
            let port = try await server.serving { port in
                let client = try makeClient(port: port, token: { _ in server.token }, directory: directory)
                for event in events.prefix(20) { try client.append(event, to: session) }
                try await client.flush(timeout: .seconds(240))
                await client.close()
                return port
            }
            // The server is gone; the app keeps recording, with a client that stays up across the restart.
            let client = try makeClient(port: port, token: { _ in server.token }, directory: directory)
            for event in events[20...] { try client.append(event, to: session) }
            try await Task.sleep(for: .milliseconds(300))
            #expect(client.status.outboxEvents == events.count - 20)
            try await server.serving(port: port) { _ in
                client.networkChanged()
                try await client.flush(timeout: .seconds(240))
            }
            #expect(try server.storedIDs(of: session).count == events.count)
            #expect(Set(try server.storedIDs(of: session)).count == events.count)
            await client.close()
        }
    }

    @Test func aRateLimitedTokenWaitsAsRetryAfterSaysAndTheSessionArrivesWhole() async throws {
        try await withLiveServer { base in
            var limited = base
            limited.configuration.rateLimit = RateLimit(perSecond: 0.05, burst: 1)
            let server = limited
            try await server.serving { port in
                // The token's one request of the next twenty seconds is spent before the client connects.
                var spend = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/sessions/\(UUID().uuidString.lowercased())/live")!)
                spend.setValue("Bearer \(server.token)", forHTTPHeaderField: "Authorization")
                _ = try await URLSession.shared.data(for: spend)
                let client = try makeClient(port: port) { _ in server.token }
                let notices = client.notices()
                let session = UUID()
                let started = ContinuousClock.now
                let ids = try dictation(chunks: 3).map { try client.append($0, to: session) }
                try await client.flush(timeout: .seconds(240))
                #expect(ContinuousClock.now - started >= .seconds(1))
                #expect(try server.storedIDs(of: session) == ids)
                await client.close()
                var waits: [Duration] = []
                for await notice in notices {
                    if case .state(_, .backingOff(let retryIn, let because)) = notice, because.contains("429") { waits.append(retryIn) }
                }
                #expect(waits.first.map { $0 >= .seconds(1) && $0 <= .seconds(20) } == true, "\(waits)")
            }
        }
    }

    @Test func whereTheUpgradeIsRefusedTheSessionGoesInBatchesOverPost() async throws {
        try await withLiveServer { server in
            try await server.serving { port in
                let client = try makeClient(port: port, token: { _ in server.token }, transport: UpgradeRefusingTransport())
                let session = UUID()
                let ids = try dictation(chunks: 10).map { try client.append($0, to: session) }
                try await client.flush(timeout: .seconds(240))
                #expect(try server.storedIDs(of: session) == ids)
                await client.close()
            }
        }
    }
}

/// A proxy that strips `Upgrade`: every WebSocket handshake is refused, plain HTTP passes.
struct UpgradeRefusingTransport: LiveTransport {
    func withConnection(to url: URL, headers: [String: String], _ body: @escaping @Sendable (any LiveConnection) async throws -> Void) async throws {
        throw ClientError.upgradeRefused(url)
    }
}

/// A server that accepts a connection, reads the request and closes without answering (killed mid-handshake):
/// the client must give the connection up and go on, not wait for the answer forever.
@Suite struct HandshakeTimeoutTests {
    @Test(.timeLimit(.minutes(5))) func aConnectionClosedBeforeTheUpgradeIsAnsweredIsGivenUpAndRetried() async throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
        _ = listen(listener, 16)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        let port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread {
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                var buffer = [UInt8](repeating: 0, count: 4096)
                _ = read(connection, &buffer, buffer.count)
                close(connection)
            }
        }
        defer { shutdown(listener, Int32(SHUT_RDWR)); close(listener) }
        let client = try makeClient(port: port, token: { _ in "token" }) { $0.acknowledgementTimeout = .seconds(1) }
        let notices = client.notices()
        try client.append(.sessionStarted(subject: "u", locale: "en-GB"), to: UUID())
        var retries = 0
        for await notice in notices {
            if case .state(_, .backingOff) = notice { retries += 1 }
            if retries == 2 { break }
        }
        #expect(retries == 2)
        await client.close()
    }
}

extension ClientSyncTests {
    /// The server numbers its answers per connection; the client lost count of them after 1,025 (it trimmed what it had
    /// sent and counted from the trimmed list), gave the connection up as out of order and connected again, every
    /// thousand events: a 10,000-event push crawled at a fifth of its speed.
    @Test func aBacklogOfMoreThanAThousandEventsIsAnsweredInOrderOverOneConnection() async throws {
        try await withLiveServer { server in
            try await server.serving { port in
                let client = try makeClient(port: port, token: { _ in server.token })
                let notices = client.notices()
                let session = UUID()
                try client.append(.sessionStarted(subject: "user-1", locale: "en-GB"), to: session)
                for index in 0..<1_300 {
                    try client.append(.transcriptPartial(segment: "\(index / 10)", revision: index % 10, text: "word \(index)", startMs: 0, endMs: 100),
                                      to: session)
                }
                try await client.flush(timeout: .seconds(600))
                await client.close()
                var backoffs: [String] = []
                for await notice in notices {
                    if case .state(_, .backingOff(_, let reason)) = notice { backoffs.append(reason) }
                }
                // A machine running every suite at once may starve the server past the stall timeout: that reconnection
                // is the sync's to make. Losing count of the answers is not.
                #expect(!backoffs.contains { $0.contains("which is not the next one sent") }, "\(backoffs)")
                let stored = try server.storedIDs(of: session)
                #expect(stored.count == 1_301 && Set(stored).count == 1_301)
            }
        }
    }
}
