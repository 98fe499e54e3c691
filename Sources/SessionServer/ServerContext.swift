import Compliance
import Hummingbird

/// A request's context: Hummingbird's, plus the access token that authenticated it.
public struct ServerContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The request's token, once ``TokenAuthentication`` has checked it.
    public var token: AccessToken?

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
