import Compliance
import EventLog
import Foundation
import HTTPTypes
import Hummingbird
import Ingest
import Projections
@testable import SessionServer
import SessionLog
import SessionModel
import Testing
import TestSupport

/// The web console's routes without a browser (ConsoleBrowserTests drives them in chromium): the login
/// and its cookie, forms from other sites refused, the erasure's confirmation, and the in-memory session
/// list behind both the console and the API.
@Suite struct ConsoleRouteTests {
    static func cookie(_ token: String) -> HTTPFields { [.cookie: "\(WebConsole.cookieName)=\(token)"] }
    static let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]

    @Test func aPageWithoutALoginLeadsToTheLoginPageAndBackAndOnlyAValidTokenSetsTheCookie() async throws {
        try await withServer { fixture in
            try await fixture.test { client async throws -> Void in
                let away = try await client.execute(uri: "/ui/sessions?status=ended", method: .get)
                #expect(away.status == .seeOther)
                #expect(away.headers[.location] == "/ui/login?next=/ui/sessions?status%3Dended")

                let refused = try await client.execute(uri: "/ui/login", method: .post, headers: Self.form.merging(origin: "localhost"),
                                                       body: ByteBuffer(string: "token=sst_nonsense&next=%2Fui%2Fsessions"))
                #expect(refused.status == .unauthorized)
                #expect(refused.headers[.setCookie] == nil)
                #expect(refused.text.contains("That token is not valid"))

                let admin = fixture.tokens[.admin]!
                let body = "token=\(admin)&next=%2Fui%2Fsessions%3Fstatus%3Dended"
                let accepted = try await client.execute(uri: "/ui/login", method: .post, headers: Self.form.merging(origin: "localhost"),
                                                        body: ByteBuffer(string: body))
                #expect(accepted.status == .seeOther)
                #expect(accepted.headers[.location] == "/ui/sessions?status=ended")
                let cookie = try #require(accepted.headers[.setCookie])
                #expect(cookie.hasPrefix("\(WebConsole.cookieName)=\(admin);"))
                #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/"))

                let page = try await client.execute(uri: "/ui/sessions", method: .get, headers: Self.cookie(admin))
                #expect(page.status == .ok)
                #expect(page.headers[.contentType] == "text/html; charset=utf-8")
                #expect(page.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("default-src 'self'") == true)
                #expect(page.text.contains("<h1>Sessions</h1>"))
            }
        }
    }

    @Test func aLoginNeverLeadsToAnotherSite() {
        #expect(WebConsole.safeNext("//evil.example/ui/") == "/ui/sessions")
        #expect(WebConsole.safeNext("https://evil.example/ui/x") == "/ui/sessions")
        #expect(WebConsole.safeNext("/ui/\\evil") == "/ui/sessions")
        #expect(WebConsole.safeNext("/v1/sessions") == "/ui/sessions")
        #expect(WebConsole.safeNext("/ui/subjects/abc") == "/ui/subjects/abc")
        #expect(WebConsole.safeNext(nil) == "/ui/sessions")
    }

    @Test func aFormFromAnotherSiteIsRefusedAndTheCookieCannotWriteThroughTheAPI() async throws {
        try await withServer { fixture in
            let (_, body) = sessionLines(subject: "patient-7")
            try await fixture.test { client async throws -> Void in
                #expect(try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest),
                                                 body: ByteBuffer(string: body)).status == .ok)
                let admin = fixture.tokens[.admin]!
                let hash = SubjectHash(bytes: fixture.log.identifierHash("patient-7"))!.description
                let confirm = "confirm=erase+\(hash.prefix(8))"
                let forged = try await client.execute(uri: "/ui/subjects/\(hash)/erase", method: .post,
                                                      headers: Self.cookie(admin).merging(Self.form).merging(origin: "evil.example"),
                                                      body: ByteBuffer(string: confirm))
                #expect(forged.status == .forbidden)
                let unnamed = try await client.execute(uri: "/ui/subjects/\(hash)/erase", method: .post,
                                                       headers: Self.cookie(admin).merging(Self.form), body: ByteBuffer(string: confirm))
                #expect(unnamed.status == .forbidden, "a form that names no origin is refused too")
                // The cookie reads through the API (the audio element, the live tail) but never writes.
                #expect(try await client.execute(uri: "/v1/sessions", method: .get, headers: Self.cookie(admin)).status == .ok)
                #expect(try await client.execute(uri: "/v1/events", method: .post, headers: Self.cookie(admin),
                                                 body: ByteBuffer(string: body)).status == .unauthorized)
                let rows = try await client.execute(uri: "/v1/sessions?status=erased", method: .get, headers: fixture.bearer(.admin))
                #expect((rows.object["sessions"] as? [Any])?.isEmpty == true, "nothing was erased")
            }
        }
    }

    @Test func anErasureNeedsTheAdminScopeAndTheWordsThePageNames() async throws {
        try await withServer { fixture in
            let (session, body) = sessionLines(subject: "patient-8")
            try await fixture.test { client async throws -> Void in
                #expect(try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest),
                                                 body: ByteBuffer(string: body)).status == .ok)
                let hash = SubjectHash(bytes: fixture.log.identifierHash("patient-8"))!.description
                let asked = try await client.execute(uri: "/ui/subjects/\(hash)/erase", method: .get, headers: Self.cookie(fixture.tokens[.admin]!))
                #expect(asked.status == .ok)
                #expect(asked.text.contains(session.uuidString.lowercased()), "the page names the session it would destroy")
                #expect(asked.text.contains("erase \(hash.prefix(8))"))
                #expect(try await client.execute(uri: "/ui/subjects/\(hash)/erase", method: .get,
                                                 headers: Self.cookie(fixture.tokens[.read]!)).status == .forbidden)

                let admin = Self.cookie(fixture.tokens[.admin]!).merging(Self.form).merging(origin: "localhost")
                for confirmation in ["", "confirm=", "confirm=erase", "confirm=erase+00000000"] {
                    let refused = try await client.execute(uri: "/ui/subjects/\(hash)/erase", method: .post, headers: admin,
                                                           body: ByteBuffer(string: confirmation))
                    #expect(refused.status == .unprocessableContent, "\(confirmation)")
                    #expect(refused.text.contains("Nothing was erased"))
                }
                #expect(try fixture.log.isErased(SessionStreams.session(session)) == false)
                let done = try await client.execute(uri: "/ui/subjects/\(hash)/erase", method: .post, headers: admin,
                                                    body: ByteBuffer(string: "confirm=erase+\(hash.prefix(8))&reference=ticket+9"))
                #expect(done.status == .ok)
                #expect(done.text.contains("Erased 1 sessions"))
                #expect(try fixture.log.isErased(SessionStreams.session(session)) == true)
            }
        }
    }

    @Test func aVerificationAskedOfTheServerIsRecordedInTheStoreAndShownOnTheIntegrityPage() async throws {
        #expect(SessionStreams.integrity.uuid.uuidString.lowercased() == "71ff2e72-cffb-86f5-9e03-75926c201f3d", "docs/FORMAT.md §5.1")
        #expect(SessionStreams.tokens.uuid.uuidString.lowercased() == "a46d9887-cb7f-8e0a-b8c9-0a4a5980ea05", "docs/FORMAT.md §5.1")
        try await withServer { fixture in
            try await fixture.test { client async throws -> Void in
                #expect(try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest),
                                                 body: ByteBuffer(string: sessionLines().body)).status == .ok)
                #expect(try await client.execute(uri: "/v1/integrity/verify", method: .post, headers: fixture.bearer(.read)).status == .forbidden)
                let size = try fixture.log.eventCount()
                let verified = try await client.execute(uri: "/v1/integrity/verify", method: .post, headers: fixture.bearer(.audit))
                #expect(verified.status == .ok, "\(verified.text)")
                #expect(verified.object["kind"] as? String == "verification" && verified.object["passed"] as? Bool == true)
                #expect(verified.object["tree_size"] as? Int == Int(size) && verified.object["position"] as? Int == Int(size))
                #expect(verified.object["actor"] as? String == "token audit (\(AccessTokens.id(of: fixture.tokens[.audit]!)!.uuidString.lowercased()))")

                let evidence = try await client.execute(uri: "/v1/integrity", method: .get, headers: fixture.bearer(.audit))
                #expect((evidence.object["verifications"] as? [[String: Any]])?.first?["position"] as? Int == Int(size))
                #expect((evidence.object["checkpoints"] as? [Any])?.isEmpty == true)
                let page = try await client.execute(uri: "/ui/integrity", method: .get, headers: Self.cookie(fixture.tokens[.audit]!))
                #expect(page.status == .ok)
                #expect(page.text.contains("Passed: every record") && page.text.contains("Recorded at log position \(size)"))
            }
        }
        // The record is the store's, not the server's: a store opened again (a restart) reads it back whole.
        try await withTemporaryStore { store in
            let log = try store.create()
            try await IntegrityEvidence(log: log).recordVerification(try log.verify(), took: .milliseconds(1500), by: "test", at: 1_795_000_000_000)
            try log.close()
            let reopened = try store.open()
            let found = try #require(try IntegrityEvidence(log: reopened).latest().verifications.first)
            #expect(found.payload.tookMilliseconds == 1500 && found.payload.passed && found.occurredAt == 1_795_000_000_000)
            #expect(found.payload.actor == "test" && found.position == 0)
        }
    }

    @Test func theSessionListPagesFiltersAndSortsEverySessionOnceAndSeesNewOnesAtOnce() async throws {
        try await withServer { fixture in
            // 150 sessions in three bodies, with 1 to 3 words each, started a second apart.
            var appended: [UUID] = []
            for batch in 0..<3 {
                var body = ""
                for index in 0..<50 {
                    let number = batch * 50 + index
                    let id = UUID()
                    appended.append(id)
                    let started = String(format: "2026-11-21T10:%02d:%02d.000Z", number / 60, number % 60)
                    body += #"{"type":"session.started","session":"\#(id.uuidString.lowercased())","at":"\#(started)","subject":"user-\#(number % 5)","locale":"en-US"}"# + "\n"
                    let text = Array(repeating: "word", count: number % 3 + 1).joined(separator: " ")
                    body += #"{"type":"transcript.committed","session":"\#(id.uuidString.lowercased())","at":"\#(started)","segment":"1","text":"\#(text)","start_ms":0,"end_ms":100}"# + "\n"
                }
                let batchBody = body
                try await fixture.test { client async throws -> Void in
                    let answer = try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest), body: ByteBuffer(string: batchBody))
                    #expect(answer.status == .ok, "\(answer.text)")
                }
            }
            let ids = appended.map { $0.uuidString.lowercased() }
            try await fixture.test { client async throws -> Void in
                func page(_ query: String) async throws -> (ids: [String], next: String?, matching: Int) {
                    let answer = try await client.execute(uri: "/v1/sessions?\(query)", method: .get, headers: fixture.bearer(.read))
                    #expect(answer.status == .ok, "\(answer.text)")
                    let rows = answer.object["sessions"] as? [[String: Any]] ?? []
                    return (rows.compactMap { $0["session"] as? String }, answer.object["next"] as? String, answer.object["matching"] as? Int ?? -1)
                }
                var seen: [String] = []
                var cursor: String?
                repeat {
                    let got = try await page("limit=40" + (cursor.map { "&after=\($0)" } ?? ""))
                    #expect(got.matching == 150)
                    seen += got.ids
                    cursor = got.next
                } while cursor != nil
                #expect(seen == ids, "every session once, in start order")

                var byWords: [String] = []
                cursor = nil
                repeat {
                    let got = try await page("limit=70&sort=words&order=desc" + (cursor.map { "&after=\($0)" } ?? ""))
                    byWords += got.ids
                    cursor = got.next
                } while cursor != nil
                #expect(Set(byWords) == Set(seen) && byWords.count == 150)
                let wordsOf = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0 % 3 + 1) })
                let words = byWords.map { wordsOf[$0] ?? 0 }
                #expect(words == words.sorted(by: >), "most words first, across pages")

                let someone = try await page("subject=user-3&limit=1000")
                let theirs: Set<String> = Set(ids.enumerated().filter { $0.offset % 5 == 3 }.map(\.element))
                #expect(someone.matching == 30)
                #expect(Set(someone.ids) == theirs)
                let prefix = String(ids[77].prefix(9))  // 8 digits and the first dash
                #expect(try await page("q=\(prefix)").ids == [ids[77]])
                #expect(try await client.execute(uri: "/v1/sessions?q=xyz", method: .get, headers: fixture.bearer(.read)).status == .badRequest)
                #expect(try await client.execute(uri: "/v1/sessions?sort=mood", method: .get, headers: fixture.bearer(.read)).status == .badRequest)

                // A session appended now is on the next page read; so is one another process's catch-up folded.
                let (late, body) = sessionLines()
                #expect(try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest),
                                                 body: ByteBuffer(string: body)).status == .ok)
                #expect(try await page("limit=1000").ids.contains(late.uuidString.lowercased()))
                let (elsewhere, other) = sessionLines()
                let report = try await SessionIngest(log: fixture.log).ingest(Data(other.utf8))
                #expect(report.appended == 3)
                try ProjectionRunner(log: fixture.log).catchUp()
                let all = try await page("limit=1000")
                #expect(all.matching == 152 && all.ids.contains(elsewhere.uuidString.lowercased()))
            }
        }
    }
}

extension HTTPFields {
    func merging(_ other: HTTPFields) -> HTTPFields {
        var merged = self
        for field in other { merged.append(field) }
        return merged
    }

    /// With an `Origin` of `http://HOST`.
    func merging(origin host: String) -> HTTPFields {
        var merged = self
        merged[.origin] = "http://\(host)"
        return merged
    }
}
