import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Ingest
import SessionServer
import Testing

/// The idle timeout closes connections that neither read nor write, never one whose request the server
/// is still answering (a slow answer is not a silent client). The server runs as `serve` runs it, on a
/// socket, with its connection guard.
@Suite struct IdleTimeoutTests {
    @Test func anAnswerThatTakesLongerThanTheIdleTimeoutStillArrives() async throws {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.idleTimeout = .seconds(1)
        try await withServer(configuration) { fixture in
            let (session, body) = sessionLines(text: "slow but sure")
            _ = try await SessionIngest(log: fixture.log).ingest(Data(body.utf8))
            try await fixture.listening { port in
                // The transcript is read from the persisted views, which must fold the session first: in
                // a write transaction, which waits while another holds the store's write lock.
                let lock = WriteLockHolder(log: fixture.log)
                defer { lock.release() }
                try await lock.held()
                var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/sessions/\(session.uuidString.lowercased())/transcript")!)
                request.setValue("Bearer \(fixture.tokens[.read]!)", forHTTPHeaderField: "Authorization")
                request.timeoutInterval = 120
                let started = ContinuousClock.now
                let answer = Task { try await URLSession.shared.data(for: request) }
                try await Task.sleep(for: .seconds(3))
                lock.release()
                let (data, response) = try await answer.value
                #expect((response as? HTTPURLResponse)?.statusCode == 200)
                #expect(String(decoding: data, as: UTF8.self).contains("slow but sure"))
                #expect(ContinuousClock.now - started >= .seconds(3), "the answer did not wait for the lock: the test proves nothing")
            }
        }
    }
}
