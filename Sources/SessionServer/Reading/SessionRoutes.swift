import Compliance
import EventLog
import Foundation
import Hummingbird
import Output
import OutputRows
import Projections
import SessionModel

/// `GET /v1/sessions`, `/v1/sessions/{id}`, `/v1/sessions/{id}/transcript`: the session list and what
/// `sessions` and `transcript` print, as JSON in the CLI's field names (docs/OUTPUT.md).
struct SessionRoutes {
    let reader: StoreReader

    static let defaultPageSize = 100
    static let maximumPageSize = 1000

    func add(to router: RouterGroup<ServerContext>) {
        router.get("sessions") { request, context in try await list(request, context) }
        router.get("sessions/:session") { _, context in try await summary(context) }
        router.get("sessions/:session/transcript") { request, context in try await transcript(request, context) }
    }

    /// A page of sessions, filtered and sorted (start order by default); `next` is the cursor of the
    /// following page, or null on the last one; `matching` counts the sessions on all pages.
    private func list(_ request: Request, _ context: ServerContext) async throws -> Response {
        let token = try context.require(.read, .audit)
        let query = try Self.query(request.form, for: token, reader: reader)
        let page = try await reader.sessions(query)
        return .json(SessionListDocument(sessions: page.sessions.map { SessionRow(summary: $0) }, next: page.next?.description,
                                 matching: page.matching).json)
    }

    /// The session-list request in `parameters` (the API's and the console's): status, subject (a raw
    /// id or a subject hash), `q` (an id prefix), started_after/started_before, runs, label (each
    /// NAME=VALUE), sort, order, after (a cursor) and limit.
    static func query(_ parameters: FormFields, for token: Principal, reader: StoreReader) throws -> SessionQuery {
        var query = SessionQuery()
        query.readableSubjects = token.subjects.isEmpty ? nil : token.subjects
        if let value = try parameters.single("limit") {
            guard let limit = Int(value), (1...Self.maximumPageSize).contains(limit) else {
                throw Problem.badRequest("limit \(value) is not a whole number from 1 to \(Self.maximumPageSize)")
            }
            query.limit = limit
        } else {
            query.limit = Self.defaultPageSize
        }
        query.status = try parameters.choice("status", SessionSummary.Status.self)
        query.subject = try parameters.text("subject").map(reader.subject)
        if let prefix = try parameters.text("q") {
            guard let nibbles = SessionQuery.idPrefix(prefix) else {
                throw Problem.badRequest("q \(prefix) is not the start of a session id (hex digits and dashes)")
            }
            query.idPrefix = nibbles
        }
        query.startedAfter = try parameters.time("started_after")
        query.startedBefore = try parameters.time("started_before")
        query.runs = try parameters.boolean("runs")
        query.labels = try SessionLabels.filter(parameters.getAll("label"), option: "label")
        if let sort = try parameters.choice("sort", SessionSort.self) { query.sort = sort }
        if let order = try parameters.choice("order", SortOrder.self) { query.descending = order == .desc }
        query.after = try parameters.single("after").map { value -> SessionListKey in
            guard let cursor = SessionListKey(value) else {
                throw Problem.badRequest("after \(value) is not a cursor (the `next` of a page: a number, a dot and a session id)")
            }
            return cursor
        }
        return query
    }

    private func summary(_ context: ServerContext) async throws -> Response {
        let token = try context.require(.read, .audit)
        let (_, summary) = try await reader.readableSummary(context, token)
        return .json(SessionRow(summary: summary).json)
    }

    private func transcript(_ request: Request, _ context: ServerContext) async throws -> Response {
        let token = try context.require(.read)
        let partials = try request.form.boolean("partials") ?? false
        let (id, _) = try await reader.readableSummary(context, token)
        let view = try await reader.access(token, request).read(.transcript, of: [id]) {
            try await reader.upToDate().transcript(of: id) ?? TranscriptView(session: id)
        }
        return .json(TranscriptDocument(view: view, withPartials: partials).json)
    }
}

/// The order of a page: `asc` or `desc`.
enum SortOrder: String, CaseIterable {
    case asc, desc
}

/// `{"sessions": [...], "next": cursor|null, "matching": N}`.
private struct SessionListDocument: OutputRow {
    static let columns = ["sessions", "next", "matching"]
    var sessions: [SessionRow]
    var next: String?
    var matching: Int

    func write(to fields: inout Fields) {
        fields.field("sessions", rows: sessions)
        fields.field("next", next)
        fields.field("matching", matching)
    }
}

extension Response {
    /// A 200 answer of JSON bytes.
    static func json(_ bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
