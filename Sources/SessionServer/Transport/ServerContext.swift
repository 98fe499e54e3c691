import Compliance
import Hummingbird
import HummingbirdWebSocket

/// A request's context: Hummingbird's, plus who the request's token stands for.
package struct ServerContext: RequestContext, WebSocketRequestContext {
    package var coreContext: CoreRequestContextStorage
    /// The request's principal, once ``TokenAuthentication`` has checked its token.
    package var principal: Principal?
    /// Where a route that upgrades to a WebSocket leaves its handler.
    package let webSocket = WebSocketHandlerReference<ServerContext>()

    package init(source: Source) {
        coreContext = .init(source: source)
    }

    /// The principal, when it is granted one of `scopes` (admin grants all); otherwise a 403 problem.
    @discardableResult
    func require(_ scopes: TokenScope...) throws -> Principal {
        guard let principal else { throw Problem.unauthenticated }
        guard scopes.contains(where: principal.grants) else {
            throw Problem(.forbidden)
        }
        return principal
    }
}
