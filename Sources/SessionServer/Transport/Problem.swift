import Failures
import Foundation
import Hummingbird
import Ingest
import Output
import SessionModel

/// An error answer as RFC 9457 `application/problem+json`: a type URI, a title, the status and, where the
/// client can act on it, a detail naming what is wrong and where (docs/SERVER.md, "Problems").
package struct Problem: HTTPResponseError, Sendable {
    package var status: HTTPResponse.Status
    /// The last part of the type URI, `urn:sessionstore:problem:TYPE`.
    package var type: String
    package var title: String
    package var detail: String?
    /// The lines of a refused NDJSON body, each with its line, field and reason.
    package var problems: [IngestProblem] = []
    /// Problems found beyond those listed.
    package var unlisted = 0
    /// Seconds after which a client may try again (429 and 503).
    package var retryAfter: Int?
    /// The methods the path takes (405).
    package var allow: [HTTPRequest.Method] = []

    package init(status: HTTPResponse.Status, type: String, title: String, detail: String? = nil) {
        self.status = status
        self.type = type
        self.title = title
        self.detail = detail
    }

    /// A domain's error as its kind says (``FailureKind``, the table the CLI's exit statuses come from too),
    /// with the error's sentence as the detail.
    init(_ error: any CodedError) {
        let kind = error.kind
        self.init(status: HTTPResponse.Status(code: kind.httpStatus), type: kind.problemType, title: kind.problemTitle, detail: error.message)
        if kind == .busy || kind == .unavailable { retryAfter = 1 }
    }

    /// No token, or one that is malformed, unknown, wrong, revoked or expired: all answered alike.
    static let unauthenticated = Problem(.unauthenticated)

    /// Nothing here, or nothing this token may see (the same answer, so that it tells nothing).
    static func notFound(_ what: String) -> Problem { Problem(.notFound, detail: what) }

    static func badRequest(_ detail: String) -> Problem { Problem(.badRequest, detail: detail) }

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [.contentType: "application/problem+json"]
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        if !allow.isEmpty { headers[.allow] = allow.map(\.rawValue).joined(separator: ", ") }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: json)))
    }

    /// The problem document's bytes.
    var json: [UInt8] { ProblemDocument(problem: self).json }
}

/// The problem's JSON members.
struct ProblemDocument: OutputRow {
    static let columns = ["type", "title", "status", "detail", "problems", "unlisted_problems"]
    var problem: Problem

    func write(to fields: inout Fields) {
        fields.field("type", "urn:sessionstore:problem:" + problem.type)
        fields.field("title", problem.title)
        fields.field("status", problem.status.code)
        if let detail = problem.detail { fields.field("detail", detail) }
        if !problem.problems.isEmpty {
            fields.field("problems", rows: problem.problems.map(LineProblemRow.init))
            fields.field("unlisted_problems", problem.unlisted)
        }
    }
}

/// One refused line of a body.
private struct LineProblemRow: OutputRow {
    static let columns = ["line", "field", "reason"]
    var problem: IngestProblem

    func write(to fields: inout Fields) {
        fields.field("line", problem.line)
        fields.field("field", problem.field)
        fields.field("reason", problem.reason)
    }
}
