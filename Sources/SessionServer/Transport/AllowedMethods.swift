import Hummingbird

/// Answers a request for a path the server has, with a method it does not take there, `405 Method Not
/// Allowed` with `Allow` (RFC 9110 §15.5.6) instead of the router's 404. Added after every route, it
/// runs only for requests no route took.
struct AllowedMethods<Context: RequestContext>: RouterMiddleware {
    private let routes: [(path: RouterPath, methods: [HTTPRequest.Method])]

    /// The routes' paths and methods; HEAD wherever GET is (the router answers it).
    init(_ routes: [(path: RouterPath, method: HTTPRequest.Method)]) {
        var methods: [String: (path: RouterPath, methods: [HTTPRequest.Method])] = [:]
        for route in routes {
            methods[route.path.description, default: (route.path, [])].methods.append(route.method)
        }
        self.routes = methods.values.map { entry in
            var allowed = entry.methods
            if allowed.contains(.get), !allowed.contains(.head) { allowed.append(.head) }
            return (entry.path, allowed.sorted { $0.rawValue < $1.rawValue })
        }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let segments = request.uri.path.split(separator: "/", omittingEmptySubsequences: true)
        guard let route = routes.first(where: { Self.path($0.path, matches: segments) }) else {
            return try await next(request, context)
        }
        var problem = Problem(.methodNotAllowed, detail: "\(request.method.rawValue) is not one of " + route.methods.map(\.rawValue).joined(separator: ", "))
        problem.allow = route.methods
        throw problem
    }

    private static func path(_ path: RouterPath, matches segments: [Substring]) -> Bool {
        var index = 0
        for element in path.components {
            if element == .recursiveWildcard { return true }
            guard index < segments.count, element ~= segments[index] else { return false }
            index += 1
        }
        return index == segments.count
    }
}
