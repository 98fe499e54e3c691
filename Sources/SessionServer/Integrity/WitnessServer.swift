import Compliance
import Foundation
import Hummingbird

/// `POST /add-checkpoint` of C2SP tlog-witness over HTTP/1.1, answered by a ``Witness``.
package enum WitnessServer {
    /// Serves `witness` on `host`:`port` (0: a free port) until SIGTERM or SIGINT, which stop accepting
    /// and let requests in flight finish. `ready` is called with the port once the server listens.
    package static func run(_ witness: Witness, host: String, port: Int, ready: @escaping @Sendable (Int) -> Void) async throws {
        let application = Application(
            router: router(witness),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "sessionstore-witness"),
            onServerRunning: { channel in ready(channel.localAddress?.port ?? port) })
        try await application.runService()
    }

    static func router(_ witness: Witness) -> Router<BasicRequestContext> {
        let router = Router()
        router.post("add-checkpoint") { request, _ -> Response in
            let body = try await request.body.collect(upTo: Witness.maximumRequestBytes)
            let answer = await witness.addCheckpoint(Array(body.readableBytesView))
            return Response(status: HTTPResponse.Status(code: answer.status), headers: [.contentType: answer.contentType],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: answer.body)))
        }
        return router
    }
}
