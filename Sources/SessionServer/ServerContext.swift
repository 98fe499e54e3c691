import Compliance
import Hummingbird
import HummingbirdWebSocket

/// A request's context: Hummingbird's, plus the access token that authenticated it.
public struct ServerContext: RequestContext, WebSocketRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The request's token, once ``TokenAuthentication`` has checked it.
    public var token: AccessToken?
    /// Where a route that upgrades to a WebSocket leaves its handler.
    public let webSocket = WebSocketHandlerReference<ServerContext>()

    public init(source: Source) {
        coreContext = .init(source: source)
    }

    /// The token, when it grants `scope` (admin grants all); otherwise a 403 problem.
    @discardableResult
    func require(_ scopes: TokenScope...) throws -> AccessToken {
        guard let token else { throw Problem.unauthenticated }
        guard scopes.contains(where: token.scope.grants) else {
            throw Problem(status: .forbidden, type: "forbidden", title: "This token's scope does not allow this request.")
        }
        return token
    }
}
