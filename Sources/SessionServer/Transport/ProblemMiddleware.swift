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
            // Hummingbird's own refusals (a route parameter of the wrong type, say), with their sentence when they have one.
            let problem = Problem(status: error.status, type: Self.type(of: error.status), title: error.status.reasonPhrase + ".",
                                  detail: (error as? HTTPError)?.body)
            return try problem.response(from: request, context: context)
        } catch let error as any CodedError where error.kind.httpStatus != 500 {  // 500: the server's own fault, below
            metrics.rejectedRequests.increment()
            return try Problem(error).response(from: request, context: context)
        } catch {
            metrics.rejectedRequests.increment()
            context.logger.error("\(request.method) \(request.uri.path): \(error)")
            let problem = Problem(.internalFault)
            return try problem.response(from: request, context: context)
        }
    }

    private static func type(of status: HTTPResponse.Status) -> String {
        status.reasonPhrase.lowercased().replacingOccurrences(of: " ", with: "-")
    }
}
