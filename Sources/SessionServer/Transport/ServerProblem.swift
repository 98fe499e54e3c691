import HTTPTypes

/// The problems the server answers of its own, beside the kinds of the library's errors (``Problem/init(_:)``, whose
/// table is `FailureKind`): one row each, with its status, type and title (docs/SERVER.md, "Problems").
enum ServerProblem: CaseIterable, Sendable {
    case badRequest, notAWebSocket, unauthenticated, forbidden, formFromElsewhere, notFound, methodNotAllowed
    case bodyTimeout, bodyTooLarge, lineTooLarge, unsupportedMediaType, invalidEvents, afterRefusal, rateLimited, appendsWaiting, readOnly, notRunnable, internalFault

    var status: HTTPResponse.Status {
        switch self {
        case .badRequest, .notAWebSocket: .badRequest
        case .unauthenticated: .unauthorized
        case .forbidden, .formFromElsewhere: .forbidden
        case .notFound: .notFound
        case .methodNotAllowed: .methodNotAllowed
        case .bodyTimeout: .requestTimeout
        case .bodyTooLarge, .lineTooLarge: .contentTooLarge
        case .unsupportedMediaType: .unsupportedMediaType
        case .invalidEvents: .unprocessableContent
        case .rateLimited: .tooManyRequests
        case .appendsWaiting: .serviceUnavailable
        case .readOnly, .afterRefusal, .notRunnable: .conflict
        case .internalFault: .internalServerError
        }
    }

    /// The last part of the type URI, `urn:sessionstore:problem:TYPE`.
    var type: String {
        switch self {
        case .badRequest: "bad-request"
        case .notAWebSocket: "not-a-websocket-handshake"
        case .unauthenticated: "unauthenticated"
        case .forbidden, .formFromElsewhere: "forbidden"
        case .notFound: "not-found"
        case .methodNotAllowed: "method-not-allowed"
        case .bodyTimeout: "body-timeout"
        case .bodyTooLarge: "body-too-large"
        case .lineTooLarge: "line-too-large"
        case .unsupportedMediaType: "unsupported-media-type"
        case .invalidEvents: "invalid-events"
        case .afterRefusal: "after-refusal"
        case .rateLimited: "rate-limited"
        case .appendsWaiting: "busy"
        case .readOnly: "read-only"
        case .notRunnable: "not-runnable"
        case .internalFault: "internal"
        }
    }

    var title: String {
        switch self {
        case .badRequest: "The request is not valid."
        case .notAWebSocket: "This route is a WebSocket."
        case .unauthenticated: "A valid access token is required (Authorization: Bearer TOKEN)."
        case .forbidden: "This token's scope does not allow this request."
        case .formFromElsewhere: "This form was not sent from the console."
        case .notFound: "Not found."
        case .methodNotAllowed: "This path does not take this method."
        case .bodyTimeout: "The request body did not arrive in time."
        case .bodyTooLarge: "The request body is too large."
        case .lineTooLarge: "A line of the body is too long."
        case .unsupportedMediaType: "The body must be NDJSON."
        case .invalidEvents: "The events cannot be stored; nothing was appended."
        case .afterRefusal: "An earlier event of this stream was refused; nothing after it is stored."
        case .rateLimited: "This token has made too many requests; try again after Retry-After."
        case .appendsWaiting: "The server has too many appends waiting; try again shortly."
        case .readOnly: "This store is a read-only replica."
        case .notRunnable: "A run is reported of a session that was recorded and is not erased."
        case .internalFault: "The server could not answer this request."
        }
    }
}

extension Problem {
    /// The server's own problem `row`, with `detail` naming what and where when the client can act on it.
    init(_ row: ServerProblem, detail: String? = nil) {
        self.init(status: row.status, type: row.type, title: row.title, detail: detail)
        if row == .appendsWaiting { retryAfter = 1 }
    }
}
