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

    /// A page of sessions in start order, filtered by status, subject and start time; `next` is the
    /// cursor of the following page, or null on the last one.
    private func list(_ request: Request, _ context: ServerContext) async throws -> Response {
        let token = try context.require(.read, .audit)
        let query = request.uri.queryParameters
        let limit = try query.get("limit").map { value -> Int in
            guard let limit = Int(value), (1...Self.maximumPageSize).contains(limit) else {
                throw Problem.badRequest("limit \(value) is not a whole number from 1 to \(Self.maximumPageSize)")
            }
            return limit
        } ?? Self.defaultPageSize
        let status = try query.get("status").map { value -> SessionSummary.Status in
            guard let status = SessionSummary.Status(rawValue: value) else {
                throw Problem.badRequest("status \(value) is not one of " + SessionSummary.Status.allCases.map(\.rawValue).joined(separator: ", "))
            }
            return status
        }
        let subject = query.get("subject").map(reader.subject)
        let since = try time(query.get("started_after"), "started_after")
        let until = try time(query.get("started_before"), "started_before")
        let after = try query.get("after").map { value -> PageCursor in
            guard let cursor = PageCursor(value) else { throw Problem.badRequest("after \(value) is not a cursor this server gave") }
            return cursor
        }
        let runner = try await reader.upToDate()
        let rows = try runner.sessions()
            .filter { summary in
                token.mayRead(sessionOf: summary.subject)
                    && status.map { summary.status == $0 } ?? true
                    && subject.map { summary.subject == $0 } ?? true
                    && since.map { (summary.startedAt ?? 0) >= $0 } ?? true
                    && until.map { (summary.startedAt ?? 0) < $0 } ?? true
            }
            .map { (cursor: PageCursor(summary: $0), row: $0) }
            .filter { row in after.map { row.cursor > $0 } ?? true }
            .sorted { $0.cursor < $1.cursor }
        let page = rows.prefix(limit)
        let next = rows.count > limit ? page.last?.cursor.description : nil
        return .json(SessionPage(sessions: page.map { SessionRow(summary: $0.row) }, next: next).json)
    }

    private func summary(_ context: ServerContext) async throws -> Response {
        let token = try context.require(.read, .audit)
        let (_, summary) = try await reader.readableSummary(context, token)
        return .json(SessionRow(summary: summary).json)
    }

    private func transcript(_ request: Request, _ context: ServerContext) async throws -> Response {
        let token = try context.require(.read)
        let (id, _) = try await reader.readableSummary(context, token)
        try await reader.recordRead("transcript", of: [id], by: token, purpose: request.uri.queryParameters.get("purpose"))
        let runner = try await reader.upToDate()
        let view = try runner.transcript(of: id) ?? TranscriptView(session: id)
        let partials = request.uri.queryParameters.get("partials") == "true"
        return .json(TranscriptDocument(view: view, withPartials: partials).json)
    }

    private func time(_ value: String?, _ name: String) throws -> Int64? {
        guard let value else { return nil }
        guard let time = RFC3339.milliseconds(value) else { throw Problem.badRequest("\(name) \(value) is not an RFC 3339 UTC time") }
        return time
    }
}

/// Where a page of the session list ends: the last session's start time and id (the list's order).
struct PageCursor: Comparable, CustomStringConvertible {
    var started: Int64
    var id: UUID

    init(summary: SessionSummary) {
        started = summary.startedAt ?? 0
        id = summary.session
    }

    /// "STARTED_MS.ID", as ``description`` writes it.
    init?(_ text: String) {
        let parts = text.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, let started = Int64(parts[0]), let id = UUID(uuidString: String(parts[1])) else { return nil }
        self.started = started
        self.id = id
    }

    var description: String { "\(started).\(id.uuidString.lowercased())" }

    static func < (lhs: PageCursor, rhs: PageCursor) -> Bool {
        if lhs.started != rhs.started { return lhs.started < rhs.started }
        return withUnsafeBytes(of: lhs.id.uuid) { left in withUnsafeBytes(of: rhs.id.uuid) { left.lexicographicallyPrecedes($0) } }
    }
}

/// `{"sessions": [...], "next": cursor|null}`.
private struct SessionPage: OutputRow {
    static let columns = ["sessions", "next"]
    var sessions: [SessionRow]
    var next: String?

    func write(to fields: inout Fields) {
        fields.field("sessions", rows: sessions)
        fields.field("next", next)
    }
}

extension Response {
    /// A 200 answer of JSON bytes.
    static func json(_ bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
