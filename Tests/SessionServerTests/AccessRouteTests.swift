import Compliance
import EventLog
import Foundation
import Hummingbird
import SessionModel
import SessionServer
import Testing
import TestSupport

/// Tokens on every /v1 request: the scope decides what a request may do, a read token limited to subjects
/// sees only theirs, and refusals tell nothing.
@Suite struct AccessRouteTests {
    @Test func aRequestWithoutAValidTokenIsRefusedWith401AndTheSameAnswerWhateverWasWrong() async throws {
        try await withServer { fixture in
            let admin = fixture.tokens[.admin]!
            let tampered = String(admin.dropLast()) + (admin.last == "A" ? "B" : "A")
            try await fixture.test { client async throws -> Void in
                var answers: [String] = []
                for headers: HTTPFields in [[:], fixture.bearer("nonsense"), fixture.bearer(tampered), [.authorization: "Basic \(admin)"]] {
                    let answer = try await client.execute(uri: "/v1/sessions", method: .get, headers: headers)
                    #expect(answer.status == .unauthorized)
                    #expect(answer.headers[.wwwAuthenticate] == "Bearer")
                    answers.append(answer.text)
                }
                #expect(Set(answers).count == 1, "no refusal says more than another")
                #expect(try await client.execute(uri: "/v1/sessions", method: .get, headers: fixture.bearer(admin)).status == .ok)
                #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
                #expect(try await client.execute(uri: "/readyz", method: .get).status == .ok)
            }
        }
    }

    @Test func anIngestTokenCannotReadAndAReadTokenCannotAppend() async throws {
        try await withServer { fixture in
            try await fixture.test { client async throws -> Void in
                #expect(try await client.execute(uri: "/v1/sessions", method: .get, headers: fixture.bearer(.ingest)).status == .forbidden)
                #expect(try await client.execute(uri: "/v1/events", method: .get, headers: fixture.bearer(.ingest)).status == .forbidden)
                #expect(try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.read),
                                                 body: ByteBuffer(string: sessionLines().body)).status == .forbidden)
                #expect(try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.audit),
                                                 body: ByteBuffer(string: sessionLines().body)).status == .forbidden)
            }
        }
    }

    @Test func aRevokedTokenIsRefusedOnceTheVerifierLooksAgain() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let tokens = AccessTokens(log: log)
            let (token, secret) = try await tokens.create(scope: .read, name: "app", actor: "test", at: ServerFixture.now)
            let verifier = TokenVerifier(log: log, refreshInterval: .zero)
            #expect(try verifier.verify(secret, at: ServerFixture.now)?.id == token.id)
            _ = try await tokens.revoke(token.id, actor: "test", at: ServerFixture.now)
            #expect(try verifier.verify(secret, at: ServerFixture.now) == nil)
            await #expect(throws: ComplianceError.self) { _ = try await tokens.revoke(token.id, actor: "test", at: ServerFixture.now) }
        }
    }

    @Test func anExpiredTokenIsRefusedAndTheStoreKeepsOnlyTheSecretsHash() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let now = ServerFixture.now
            let (_, secret) = try await AccessTokens(log: log).create(scope: .admin, expiresAt: now + 60_000, name: "short", actor: "test", at: now)
            let verifier = TokenVerifier(log: log, refreshInterval: .zero)
            #expect(try verifier.verify(secret, at: now + 59_000) != nil)
            #expect(try verifier.verify(secret, at: now + 60_000) == nil)
            let stored = try log.readAll().map { Data($0.data) }
            let secretPart = Data(secret.split(separator: "_").last!.utf8)
            #expect(stored.allSatisfy { $0.range(of: secretPart) == nil }, "the secret itself is never stored")
        }
    }

    @Test func aReadTokenLimitedToASubjectSeesOnlyThatPersonsSessions() async throws {
        try await withServer { fixture in
            let (dana, eli, limited) = try await fixture.danaAndEli()
            try await fixture.test { client async throws -> Void in
                let list = try await client.execute(uri: "/v1/sessions", method: .get, headers: fixture.bearer(limited))
                let sessions = (list.object["sessions"] as? [[String: Any]])?.compactMap { $0["session"] as? String }
                #expect(sessions == [dana.uuidString.lowercased()])
                let own = try await client.execute(uri: "/v1/sessions/\(dana)/transcript", method: .get, headers: fixture.bearer(limited))
                #expect(own.status == .ok)
                #expect(own.text.contains("Hello world"))
                let other = try await client.execute(uri: "/v1/sessions/\(eli)/transcript", method: .get, headers: fixture.bearer(limited))
                #expect(other.status == .notFound, "another person's session is not there for this token")
                #expect(try await client.execute(uri: "/v1/subjects/eli/consent", method: .get, headers: fixture.bearer(limited)).status == .notFound)
                #expect(try await client.execute(uri: "/v1/events", method: .get, headers: fixture.bearer(limited)).status == .forbidden)
            }
        }
    }

    @Test func anAuditorsTokenReadsTheConsentTrailButNoTranscriptAndEveryReadIsInTheAccessLog() async throws {
        try await withServer { fixture in
            let dana = sessionLines(subject: "dana")
            try await fixture.test { client async throws -> Void in
                #expect(try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest),
                                                 body: ByteBuffer(string: dana.body)).status == .ok)
                let trail = try await client.execute(uri: "/v1/subjects/dana/consent", method: .get, headers: fixture.bearer(.audit))
                #expect(trail.status == .ok, "\(trail.text)")
                let entries = trail.object["entries"] as? [[String: Any]]
                #expect(entries?.count == 1)
                #expect(entries?.first?["consent_type"] as? String == "transcription")
                #expect(entries?.first?["status"] as? String == "granted")
                #expect(try await client.execute(uri: "/v1/sessions/\(dana.session)/transcript", method: .get,
                                                 headers: fixture.bearer(.audit)).status == .forbidden)
                #expect(try await client.execute(uri: "/v1/sessions/\(dana.session)/transcript?purpose=support", method: .get,
                                                 headers: fixture.bearer(.read)).status == .ok)
            }
            let reads = try AccessLog(log: fixture.log).entries(session: dana.session)
            #expect(reads.map(\.command) == ["transcript"])
            #expect(reads.first?.actor.hasPrefix("token read (") == true)
            #expect(reads.first?.purpose == "support")
        }
    }

    @Test func theSessionListPagesWithACursorAndFilters() async throws {
        try await withServer { fixture in
            let bodies = (0..<5).map { _ in sessionLines() }
            try await fixture.test { client async throws -> Void in
                #expect(try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest),
                                                 body: ByteBuffer(string: bodies.map(\.body).joined())).status == .ok)
                var seen: [String] = []
                var next: String? = nil
                repeat {
                    let uri = "/v1/sessions?limit=2" + (next.map { "&after=\($0)" } ?? "")
                    let page = try await client.execute(uri: uri, method: .get, headers: fixture.bearer(.read))
                    #expect(page.status == .ok)
                    seen += (page.object["sessions"] as? [[String: Any]] ?? []).compactMap { $0["session"] as? String }
                    next = page.object["next"] as? String
                } while next != nil && seen.count < 10
                #expect(seen.count == 5)
                #expect(Set(seen) == Set(bodies.map { $0.session.uuidString.lowercased() }))
                #expect(try await client.execute(uri: "/v1/sessions?limit=0", method: .get, headers: fixture.bearer(.read)).status == .badRequest)
                #expect(try await client.execute(uri: "/v1/sessions?status=ended", method: .get, headers: fixture.bearer(.read))
                    .object["sessions"] as? [Any] != nil)
                let ended = try await client.execute(uri: "/v1/sessions?status=ended", method: .get, headers: fixture.bearer(.read))
                #expect((ended.object["sessions"] as? [Any])?.isEmpty == true)
            }
        }
    }
}

extension AccessRouteTests {
    @Test func aTokenMadeWhileTheServerRunsIsAcceptedAtOnce() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let verifier = TokenVerifier(log: log, refreshInterval: .seconds(3600))
            let (_, first) = try await AccessTokens(log: log).create(scope: .read, name: "first", actor: "test", at: ServerFixture.now)
            #expect(try verifier.verify(first, at: ServerFixture.now) != nil)
            let (_, second) = try await AccessTokens(log: log).create(scope: .read, name: "second", actor: "test", at: ServerFixture.now)
            #expect(try verifier.verify(second, at: ServerFixture.now) != nil, "an unknown id makes the verifier look again")
        }
    }
}
