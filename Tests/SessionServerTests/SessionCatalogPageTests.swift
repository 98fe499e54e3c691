import Foundation
import Ingest
import Projections
@testable import SessionServer
import Testing
import TestSupport

/// A page of the whole session list in start order is found by its cursor instead of a pass over every
/// session: it must be the very page the pass finds, forwards and backwards, at every cursor and size.
@Suite struct SessionCatalogPageTests {
    @Test func aPageFoundByItsCursorIsThePageAPassOverEverySessionFinds() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            defer { try? log.close() }
            // 97 sessions, many started in the same millisecond, so that ties are broken by id.
            let lines = (0..<97).flatMap { index -> [String] in
                let session = UUID().uuidString.lowercased()
                let at = "2026-11-21T10:00:0\(index % 4).000Z"
                return [#"{"type":"session.started","session":"\#(session)","at":"\#(at)","subject":"user-\#(index % 5)","locale":"en"}"#]
            }
            _ = try await SessionIngest(log: log).ingest(Data(lines.joined(separator: "\n").utf8))
            let catalog = SessionCatalog()
            try catalog.catchUp(with: ProjectionRunner(log: log))

            for descending in [false, true] {
                for limit in [1, 7, 96, 97, 100, Int.max - 1] {
                    var query = SessionQuery()
                    query.descending = descending
                    query.limit = limit
                    var byPass = query
                    byPass.startedAfter = .min  // a filter that keeps every session: the pass
                    var pages = 0
                    repeat {
                        let found = catalog.page(query), passed = catalog.page(byPass)
                        #expect(found.sessions.map(\.session) == passed.sessions.map(\.session), "limit \(limit), descending \(descending), page \(pages)")
                        #expect(found.next == passed.next && found.matching == passed.matching && found.matching == 97)
                        query.after = found.next
                        byPass.after = passed.next
                        pages += 1
                    } while query.after != nil && pages < 200
                    #expect(pages == (97 + min(limit, 97) - 1) / min(limit, 97))
                }
            }
            // A cursor naming no session (the session it named is gone) still pages from where it points.
            var query = SessionQuery()
            query.after = SessionListKey(value: 1_795_255_201_500, id: UUID())
            query.limit = 10
            var byPass = query
            byPass.startedAfter = .min
            #expect(catalog.page(query).sessions.map(\.session) == catalog.page(byPass).sessions.map(\.session))
            #expect(catalog.page(query).sessions.isEmpty == false)
        }
    }
}
