import Compliance
import Foundation
import Hummingbird
import Output
import OutputRows
import Projections

/// `GET /v1/subjects/{subject}/consent`: a person's consent trail, as `consent` prints it, for an auditor.
struct SubjectRoutes {
    let reader: StoreReader

    func add(to router: RouterGroup<ServerContext>) {
        router.get("subjects/:subject/consent") { _, context in
            let token = try context.require(.audit, .read)
            let subject = reader.subject(try context.parameters.require("subject"))
            guard token.mayRead(sessionOf: subject) else {
                throw Problem.notFound("the store has no consent trail of this subject that this token may read")
            }
            let trail = try await reader.upToDate().consentTrail(of: subject)
            guard !trail.entries.isEmpty else { throw Problem.notFound("the store has no consent event of this subject") }
            return Response.json(ConsentTrailDocument(subject: subject.description, entries: trail.entries.map { ConsentRow(subject: subject, entry: $0) }).json)
        }
    }
}

/// `{"subject_hash": …, "entries": [...]}`.
private struct ConsentTrailDocument: OutputRow {
    static let columns = ["subject_hash", "entries"]
    var subject: String
    var entries: [ConsentRow]

    func write(to fields: inout Fields) {
        fields.field("subject_hash", subject)
        fields.field("entries", rows: entries)
    }
}
