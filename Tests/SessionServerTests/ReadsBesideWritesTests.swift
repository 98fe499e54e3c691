import EventLog
import Foundation
import Hummingbird
import Projections
import Testing

/// The session list is read without waiting for the store's write lock (its copy in memory folds new
/// events from a snapshot), still showing every event committed before the request; the persisted views
/// catch up in the background after appends, with no reader asking.
@Suite struct ReadsBesideWritesTests {
    @Test func theSessionListAndASessionAreReadWhileAnotherTransactionHoldsTheWriteLock() async throws {
        try await withServer { fixture in
            let (first, firstBody) = sessionLines(subject: "first")
            let (second, secondBody) = sessionLines(subject: "second")
            try await fixture.test { client async throws -> Void in
                let listed = try await client.execute(uri: "/v1/sessions", method: .get, headers: fixture.bearer(.read))
                #expect(listed.status == .ok, "the list is in memory before the lock is taken")
                for body in [firstBody, secondBody] {
                    let appended = try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest), body: ByteBuffer(string: body))
                    #expect(appended.status == .ok, "\(appended.text)")
                }
                let lock = WriteLockHolder(log: fixture.log)
                defer { lock.release() }
                try await lock.held()

                let answers = try await withDeadline(seconds: 60, onExpiry: lock.release) {
                    (try await client.execute(uri: "/v1/sessions", method: .get, headers: fixture.bearer(.read)),
                     try await client.execute(uri: "/v1/sessions/\(second.uuidString.lowercased())", method: .get, headers: fixture.bearer(.read)))
                }
                let (page, row) = try #require(answers, "a read of the session list waited for the write lock")
                #expect(page.status == .ok)
                let ids = (page.object["sessions"] as? [[String: Any]] ?? []).compactMap { $0["session"] as? String }
                #expect(Set(ids) == Set([first, second].map { $0.uuidString.lowercased() }))
                #expect(row.status == .ok)
                #expect(row.object["session"] as? String == second.uuidString.lowercased())
            }
        }
    }

    @Test func thePersistedViewsCatchUpAfterAnAppendWithNoReaderAsking() async throws {
        try await withServer { fixture in
            try await fixture.test { client async throws -> Void in
                let appended = try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest),
                                                        body: ByteBuffer(string: sessionLines().body))
                #expect(appended.status == .ok)
                let runner = ProjectionRunner(log: fixture.log)
                let end = try fixture.log.eventCount()
                var checkpoint = try runner.sessionsCheckpoint()
                for _ in 0..<600 where checkpoint < end {
                    try await Task.sleep(for: .milliseconds(100))
                    checkpoint = try runner.sessionsCheckpoint()
                }
                #expect(checkpoint == end, "the session list's stored checkpoint did not reach the log's end")
            }
        }
    }
}
