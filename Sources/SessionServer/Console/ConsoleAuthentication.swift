import Foundation
import Hummingbird

/// Every console page but the login: the cookie's token is checked as the API checks a bearer token.
/// Without a valid one, a GET goes to the login page (and back after it) and anything else is refused.
/// A form sent to the console must come from the console itself (its `Origin`, or `Referer`, names this
/// server): with the SameSite=Strict cookie, no other site can make a logged-in browser act.
/// A refusal or failure is answered as a page, not as JSON.
struct ConsoleAuthentication: RouterMiddleware {
    typealias Context = ServerContext
    let authenticator: Authenticator

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        do {
            guard let cookie = request.cookies[WebConsole.cookieName], let principal = try await authenticator.principal(cookie.value) else {
                guard request.method == .get || request.method == .head else { throw Problem.unauthenticated }
                let back = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
                let query = (try? URLEncodedFormEncoder().encode(["next": back])) ?? ""
                return Response.redirect(to: "/ui/login?" + query, type: .normal)
            }
            context.principal = principal
            if request.method != .get && request.method != .head { try Self.checkOrigin(request) }
            return try await next(request, context)
        } catch let problem as Problem {
            return WebConsole.page("message", MessagePage(heading: problem.title.trimmingCharacters(in: CharacterSet(charactersIn: ".")),
                                                          text: problem.detail ?? problem.title, actor: context.principal?.actor),
                                   status: problem.status)
        }
    }

    /// Refuses a form whose `Origin` (or, without one, `Referer`) is not this server.
    static func checkOrigin(_ request: Request) throws {
        let host = request.head.authority
        let from = request.headers[.origin] ?? request.headers[.referer]
        guard let from, let host, let url = URL(string: from), let fromHost = url.host else {
            throw Problem(.formFromElsewhere, detail: "the request names no origin: forms are taken only from the console's own pages")
        }
        let authority = fromHost + (url.port.map { ":\($0)" } ?? "")
        guard authority.lowercased() == host.lowercased() else {
            throw Problem(.formFromElsewhere, detail: "the request came from \(from), not from this server's pages")
        }
    }
}

struct MessagePage {
    var heading: String
    var text: String
    var actor: String?
}
