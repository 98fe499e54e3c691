import Compliance
import EventLog
import Foundation
import Hummingbird
@testable import SessionServer
import SessionModel
import Testing

/// `GET /v1/export` (several sessions, a subject's, all) and `GET /v1/subjects/{subject}/bundle`: streamed,
/// narrowed to what the token may read, and recorded as exports.
@Suite struct ExportRouteTests {
    /// `count` sessions, alternately of user-a and user-b, each with one committed segment naming it.
    static func sessions(_ count: Int) -> (ids: [UUID], body: String) {
        var ids: [UUID] = []
        var body = ""
        for index in 0..<count {
            let id = UUID()
            ids.append(id)
            let started = String(format: "2026-11-21T%02d:%02d:%02d.000Z", index / 3600, index / 60 % 60, index % 60)
            body += #"{"type":"session.started","session":"\#(id.uuidString.lowercased())","at":"\#(started)","subject":"user-\#(index % 2 == 0 ? "a" : "b")","locale":"en-US"}"# + "\n"
            body += #"{"type":"transcript.committed","session":"\#(id.uuidString.lowercased())","at":"\#(started)","segment":"1","text":"words of session number \#(index) spoken clearly into the microphone","start_ms":0,"end_ms":900}"# + "\n"
        }
        return (ids, body)
    }

    @Test func allSessionsStreamInOneExportThatHoldsEveryOneOnceAndIsRecordedOnce() async throws {
        try await withServer { fixture in
            let (ids, body) = Self.sessions(600)
            try await fixture.test { client async throws -> Void in
                #expect(try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest), body: ByteBuffer(string: body)).status == .ok)
                let answer = try await client.execute(uri: "/v1/export?all=true&format=csv", method: .get, headers: fixture.bearer(.read))
                #expect(answer.status == .ok)
                #expect(answer.headers[.contentType] == "text/csv; charset=utf-8")
                #expect(answer.body.readableBytes > 65_536, "an export of more than one of the stream's buffers")
                let lines = answer.text.split(whereSeparator: \.isNewline)
                #expect(lines.count == 601, "a header and a row per session")
                for (index, id) in ids.enumerated() where index % 50 == 0 {
                    #expect(lines.contains { $0.contains(id.uuidString.lowercased()) && $0.contains("session number \(index) ") })
                }
            }
            let recorded = try AccessLog(log: fixture.log).entries(session: ids[7]).filter { $0.command == "export csv" }
            #expect(recorded.count == 1 && recorded[0].sessions.count == 600, "one export record naming every session")
        }
    }

    @Test func aSubjectsOrNamedSessionsExportOnlyWhatTheTokenMayRead() async throws {
        try await withServer { fixture in
            let (ids, body) = Self.sessions(6)
            let hashB = SubjectHash(bytes: fixture.log.identifierHash("user-b"))!
            let limited = try await AccessTokens(log: fixture.log).create(scope: .read, subjects: [hashB], name: "b-only", actor: "test",
                                                                            at: ServerFixture.now).secret
            try await fixture.test { client async throws -> Void in
                #expect(try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest), body: ByteBuffer(string: body)).status == .ok)
                let theirs = try await client.execute(uri: "/v1/export?subject=user-a&format=json", method: .get, headers: fixture.bearer(.read))
                #expect(theirs.status == .ok)
                #expect(theirs.text.components(separatedBy: "spoken clearly").count - 1 == 3)
                let oneFile = try await client.execute(uri: "/v1/export?subject=user-a&format=vtt", method: .get, headers: fixture.bearer(.read))
                #expect(oneFile.status == .badRequest, "a WebVTT file holds one session: refused before anything is sent")
                #expect(oneFile.text.contains("/v1/sessions/{id}/export?format=vtt"), "\(oneFile.text)")
                let oneSession = try await client.execute(uri: "/v1/export?session=\(ids[1])&format=srt", method: .get, headers: fixture.bearer(.read))
                #expect(oneSession.status == .badRequest, "the document's format enum of this route is json and csv: \(oneSession.text)")
                #expect(theirs.text.contains("session number 0 ") && !theirs.text.contains("session number 1 "))

                let named = try await client.execute(uri: "/v1/export?session=\(ids[1])&session=\(ids[4])&format=json", method: .get,
                                                     headers: fixture.bearer(.read))
                #expect(named.status == .ok && named.text.contains("session number 1 ") && named.text.contains("session number 4 "))
                #expect(!named.text.contains("session number 2 "))

                let mine = try await client.execute(uri: "/v1/export?all=true&format=csv", method: .get, headers: fixture.bearer(limited))
                #expect(mine.status == .ok && mine.text.contains("session number 1 ") && !mine.text.contains("session number 0 "))
                #expect(try await client.execute(uri: "/v1/export?session=\(ids[0])", method: .get, headers: fixture.bearer(limited)).status == .notFound)
                let nothing = try await client.execute(uri: "/v1/export?format=csv", method: .get, headers: fixture.bearer(.read))
                #expect(nothing.status == .notFound && nothing.text.contains("nothing to export"), "nothing selected: \(nothing.text)")
                let together = try await client.execute(uri: "/v1/export?session=\(ids[1])&subject=user-a&format=json", method: .get,
                                                        headers: fixture.bearer(.read))
                #expect(together.status == .ok, "the sessions named and the subject's, together")
                #expect(together.text.contains("session number 0 ") && together.text.contains("session number 1 "))
                #expect(!together.text.contains("session number 3 "), "a session of neither")
                let everything = try await client.execute(uri: "/v1/export?all=true&subject=user-a&format=json", method: .get, headers: fixture.bearer(.read))
                #expect(everything.status == .ok && everything.text.contains("session number 3 "), "all=true takes in every session")
                #expect(try await client.execute(uri: "/v1/export?all=maybe", method: .get, headers: fixture.bearer(.read)).status == .badRequest)
                #expect(try await client.execute(uri: "/v1/export?session=", method: .get, headers: fixture.bearer(.read)).status == .badRequest)
                #expect(try await client.execute(uri: "/v1/export?session=\(UUID())", method: .get, headers: fixture.bearer(.read)).status == .notFound)
                #expect(try await client.execute(uri: "/v1/export?all=true", method: .get, headers: fixture.bearer(.ingest)).status == .forbidden)
            }
        }
    }

    @Test func aSubjectsBundleIsAZipRecordedAsAnExport() async throws {
        try await withServer { fixture in
            let (session, body) = ContentRouteTests.recordedSession()
            try await fixture.test { client async throws -> Void in
                #expect(try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest), body: ByteBuffer(string: body)).status == .ok)
                let bundle = try await client.execute(uri: "/v1/subjects/dana/bundle?purpose=access+request", method: .get, headers: fixture.bearer(.read))
                #expect(bundle.status == .ok)
                #expect(bundle.headers[.contentType] == "application/zip")
                let bytes = Array(bundle.body.readableBytesView)
                #expect(bytes.prefix(4) == [0x50, 0x4B, 0x03, 0x04], "a ZIP")
                #expect(String(decoding: bytes, as: UTF8.self).contains("manifest.json"))
                #expect(try await client.execute(uri: "/v1/subjects/nobody/bundle", method: .get, headers: fixture.bearer(.read)).status == .notFound)
            }
            let recorded = try AccessLog(log: fixture.log).entries(session: session).filter { $0.command == "export bundle" }
            #expect(recorded.count == 1 && recorded[0].purpose == "access request")
        }
    }
}
