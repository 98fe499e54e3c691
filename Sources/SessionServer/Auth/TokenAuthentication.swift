import Compliance
import EventLog
import Foundation
import Hummingbird
import WebTokens

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
