import Compliance
import Exports
import Foundation
import Hummingbird
import Output
import OutputRows
import Projections
import SessionModel

/// `GET /v1/subjects/{subject}/consent`: a person's consent trail, as `consent` prints it, for an auditor;
/// `GET /v1/subjects/{subject}/bundle`: the person's data as `export --subject --bundle` writes it.
struct SubjectRoutes {
    let reader: StoreReader

    func add(to router: RouterGroup<ServerContext>) {
        router.get("subjects/:subject/bundle") { request, context in
            let token = try context.require(.read)
            let subject = reader.subject(try context.parameters.require("subject"))
            guard token.mayRead(sessionOf: subject) else { throw Problem.notFound("the store has nothing of this subject that this token may read") }
            return try await Self.bundle(of: subject, for: token, request: request, reader: reader)
        }
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

extension SubjectRoutes {
    /// The subject's bundle (a ZIP: manifest, consent trail, each session's JSON and WebVTT, each
    /// recording as FLAC), recorded as an export before it is sent. The archive is made in a temporary
    /// file (a ZIP's directory comes last) and streamed from it, then removed.
    static func bundle(of subject: SubjectHash, for token: Principal, request: Request, reader: StoreReader) async throws -> Response {
        let access = try reader.access(token, request)
        let sessions = try await reader.sessions(.all(of: subject)).sessions
        let exporter = Exporter(log: reader.log, upToDate: try await reader.upToDate(), sessions: sessions)
        let bundle = SubjectBundle(exporter: exporter, subject: subject)
        var headers = WebConsole.pageHeaders(type: "application/zip")
        headers[.contentDisposition] = "attachment; filename=\"subject-\(subject.description.prefix(12)).zip\""
        guard request.method != .head else {  // nothing is made, sent or recorded
            guard !bundle.sessions.isEmpty else { throw Problem.notFound("the store has no sessions of that subject") }
            return Response(status: .ok, headers: headers)
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sessionstore-bundle-\(UUID().uuidString).zip")
        do {
            try await access.read(.export(format: "bundle", subject: subject), of: bundle.sessions) { try bundle.write(to: file.path) }
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw error
        }
        return StreamedBody.response(headers: headers) { sink in
            defer { try? FileManager.default.removeItem(at: file) }
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            while let chunk = try handle.read(upToCount: 1 << 16), !chunk.isEmpty { try sink.write(bytes: chunk) }
        }
    }
}
