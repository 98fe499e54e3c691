import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded

/// Hands requests straight to a router's responder, as HummingbirdTesting's router framework does, without
/// its library: that would bring AsyncHTTPClient, swift-nio-http2 and swift-nio-ssl into every test build
/// (docs/PERFORMANCE.md, "Build"). Tests that need a socket use `ServerFixture.listening`.
struct RouterClient<Context: RequestContext>: Sendable where Context.Source == ApplicationRequestContextSource {
    private let responder: RouterResponder<Context>
    private let logger = Logger(label: "RouterClient")

    init(_ router: Router<Context>) {
        responder = router.buildResponder()
    }

    /// The response to one request; the body is read to its end.
    @discardableResult
    func execute(uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil) async throws -> TestResponse {
        var headers = headers
        if let body { headers[.contentLength] = String(body.readableBytes) }
        return try await execute(uri: uri, method: method, headers: headers, streaming: RequestBody(buffer: body ?? ByteBuffer()))
    }

    /// The response to a request whose body arrives as `body` delivers it (slowly, or never whole).
    @discardableResult
    func execute(uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], streaming body: RequestBody) async throws -> TestResponse {
        let request = Request(
            head: HTTPRequest(method: method, scheme: "http", authority: "localhost", path: uri, headerFields: headers),
            body: body
        )
        let context = Context(source: ApplicationRequestContextSource(channel: NIOAsyncTestingChannel(), logger: logger))
        let response: Response
        do {
            response = try await responder.respond(to: request, context: context)
        } catch {
            response = Response(status: .internalServerError)
        }
        let writer = CollectingWriter()
        try await response.body.write(writer)
        return TestResponse(head: response.head, body: await writer.collected.body, trailerHeaders: await writer.collected.trailers)
    }
}

/// A response as the client saw it.
struct TestResponse: Sendable {
    let head: HTTPResponse
    let body: ByteBuffer
    let trailerHeaders: HTTPFields?

    var status: HTTPResponse.Status { head.status }
    var headers: HTTPFields { head.headerFields }
}

private actor CollectingWriter: ResponseBodyWriter {
    var collected: (body: ByteBuffer, trailers: HTTPFields?) = (ByteBuffer(), nil)

    func write(_ buffer: ByteBuffer) async throws {
        collected.body.writeImmutableBuffer(buffer)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {
        collected.trailers = trailingHeaders
    }
}
