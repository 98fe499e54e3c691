import Compliance
import EventLog
import Failures
import Foundation
import Hummingbird
import NIOCore
import WebTokens

/// Turns every error a route throws into a problem answer (RFC 9457), counts refusals, and keeps the
/// server's own errors (a store failure) from telling more than that something went wrong.
struct ProblemMiddleware: RouterMiddleware {
    typealias Context = ServerContext
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            let response = try await next(request, context)
            if response.status.code >= 400 { metrics.rejectedRequests.increment() }
            return response
        } catch let problem as Problem {
            metrics.rejectedRequests.increment()
            return try problem.response(from: request, context: context)
        } catch let error as HTTPResponseError {
            metrics.rejectedRequests.increment()
            let problem = Problem(status: error.status, type: Self.type(of: error.status), title: error.status.reasonPhrase + ".")
            return try problem.response(from: request, context: context)
        } catch let error as any CodedError where error.kind.httpStatus != 500 {  // 500: the server's own fault, below
            metrics.rejectedRequests.increment()
            return try Problem(error).response(from: request, context: context)
        } catch {
            metrics.rejectedRequests.increment()
            context.logger.error("\(request.method) \(request.uri.path): \(error)")
            let problem = Problem(status: .internalServerError, type: "internal", title: "The server could not answer this request.")
            return try problem.response(from: request, context: context)
        }
    }

    private static func type(of status: HTTPResponse.Status) -> String {
        status.reasonPhrase.lowercased().replacingOccurrences(of: " ", with: "-")
    }
}

/// Who a presented token (a store token, `sst_…`, or a JWT of the configured identity provider) stands
/// for; nil for any token that is not valid now.
struct Authenticator: Sendable {
    let verifier: TokenVerifier
    let identity: (tokens: IdentityTokens, keys: JSONWebKeySet)?
    let log: EventLog

    func principal(_ presented: String) async throws -> Principal? {
        if presented.hasPrefix("sst_") {
            return try verifier.verify(presented, at: log.now).map(Principal.init(token:))
        } else if let identity {
            return identity.tokens.principal(presented, keys: identity.keys, log: log)
        }
        return nil
    }
}

/// Checks the token of every request under /v1 and puts its principal in the context; a request
/// without a valid one is answered 401, whatever was wrong with it. The token is the bearer token of
/// the `Authorization` header or, for a GET or HEAD only, the web console's cookie (``WebConsole``):
/// so that the console's audio element and live tail can read, while no request a cookie carries can
/// change the store through the API.
struct TokenAuthentication: RouterMiddleware {
    typealias Context = ServerContext
    let authenticator: Authenticator

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let presented: String
        if let header = request.headers[.authorization] {
            guard header.count > 7, header.prefix(7).lowercased() == "bearer " else { throw Problem.unauthenticated }
            presented = String(header.dropFirst(7).trimmingOptionalWhiteSpace)
        } else if request.method == .get || request.method == .head, let cookie = request.cookies[WebConsole.cookieName] {
            presented = cookie.value
        } else {
            throw Problem.unauthenticated
        }
        guard let principal = try await authenticator.principal(presented) else { throw Problem.unauthenticated }
        var context = context
        context.principal = principal
        return try await next(request, context)
    }
}
