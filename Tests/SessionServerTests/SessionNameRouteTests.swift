import Compliance
import Foundation
import Hummingbird
import SessionModel
import Testing
import TestSupport

/// One rule for naming a session, over HTTP as on the command line: its whole id, or a unique prefix of at least
/// 8 characters; a prefix sees only the sessions the token may read.
@Suite struct SessionNameRouteTests {
    @Test func aUniquePrefixNamesASessionAsTheWholeIdDoesAndTooShortOneIsRefused() async throws {
        try await withServer { fixture in
            let dana = sessionLines(subject: "dana")
            try await fixture.test { client async throws -> Void in
                #expect(try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest),
                                                 body: ByteBuffer(string: dana.body)).status == .ok)
                let id = dana.session.uuidString.lowercased()
                for name in [id, id.uppercased(), String(id.prefix(8)), String(id.prefix(13))] {
                    let transcript = try await client.execute(uri: "/v1/sessions/\(name)/transcript", method: .get, headers: fixture.bearer(.read))
                    #expect(transcript.status == .ok && transcript.text.contains("Hello world"), "\(name): \(transcript.text)")
                    let row = try await client.execute(uri: "/v1/sessions/\(name)", method: .get, headers: fixture.bearer(.read))
                    #expect(row.object["session"] as? String == id, "\(name): \(row.text)")
                }
                let short = try await client.execute(uri: "/v1/sessions/\(id.prefix(7))", method: .get, headers: fixture.bearer(.read))
                #expect(short.status == .badRequest && short.text.contains(String(id.prefix(7))), "\(short.text)")
                let exported = try await client.execute(uri: "/v1/export?session=\(id.prefix(8))&format=csv", method: .get, headers: fixture.bearer(.read))
                #expect(exported.status == .ok && exported.text.contains("Hello world"), "\(exported.text)")
                let badQuery = try await client.execute(uri: "/v1/export?session=xyz", method: .get, headers: fixture.bearer(.read))
                #expect(badQuery.status == .badRequest && badQuery.text.contains("xyz is not a session id"), "\(badQuery.text)")
            }
        }
    }

    @Test func aPrefixOfASessionTheTokenMayNotReadIsNotFoundAsAnUnknownOneIs() async throws {
        try await withServer { fixture in
            let (dana, eli, limited) = try await fixture.danaAndEli()
            try await fixture.test { client async throws -> Void in
                let theirs = try await client.execute(uri: "/v1/sessions/\(eli.uuidString.prefix(8))/transcript", method: .get,
                                                      headers: fixture.bearer(limited))
                let unknown = try await client.execute(uri: "/v1/sessions/00000000/transcript", method: .get, headers: fixture.bearer(limited))
                #expect(theirs.status == .notFound && unknown.status == .notFound, "\(theirs.text)")
                #expect(!theirs.text.contains(eli.uuidString.lowercased()), "the answer names no session the token may not read")
                let own = try await client.execute(uri: "/v1/sessions/\(dana.uuidString.prefix(8))/transcript", method: .get,
                                                   headers: fixture.bearer(limited))
                #expect(own.status == .ok, "\(own.text)")
            }
        }
    }
}
