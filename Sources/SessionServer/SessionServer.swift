import Compliance
import EventLog
import Foundation
import Hummingbird
import HummingbirdCore
import NIOCore

/// `sessionstore serve`: the store over HTTP/1.1 (docs/SERVER.md, docs/openapi.yaml).
///
/// Every route under `/v1` takes a bearer token (``AccessTokens``); errors answer RFC 9457 problems.
/// SIGTERM or SIGINT stop accepting connections, let requests in flight finish (an append in flight
/// is made durable and answered), and then the caller closes the store.
public struct SessionServer: Sendable {
    public let log: EventLog
    public let configuration: ServerConfiguration
    let metrics = ServerMetrics()

    public init(log: EventLog, configuration: ServerConfiguration = ServerConfiguration()) {
        self.log = log
        self.configuration = configuration
    }

    /// Serves until SIGTERM or SIGINT; `ready` is called with the port once the server listens.
    public func run(ready: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        let metrics = self.metrics
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionCounter(metrics: metrics)],
            idleTimeout: .seconds(configuration.idleTimeout.components.seconds))
        let application = Application(
            router: router(),
            server: .http1(configuration: http1),
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), serverName: "sessionstore",
                availableConnectionsDelegate: MaximumAvailableConnections(configuration.maximumConnections)),
            onServerRunning: { channel in ready(channel.localAddress?.port ?? configuration.port) })
        try await application.runService()
    }

    /// The routes, for ``run(ready:)`` and for tests that drive them without a socket.
    public func router() -> Router<ServerContext> {
        let router = Router(context: ServerContext.self)
        router.add(middleware: ProblemMiddleware(metrics: metrics))
        HealthRoutes(log: log, metrics: metrics).add(to: router)
        let reader = StoreReader(log: log)
        let v1 = router.group("v1").add(middleware: TokenAuthentication(verifier: TokenVerifier(log: log)))
        EventRoutes(log: log, configuration: configuration, gate: AppendGate(capacity: configuration.maximumQueuedAppends), metrics: metrics)
            .add(to: v1)
        SessionRoutes(reader: reader).add(to: v1)
        SubjectRoutes(reader: reader).add(to: v1)
        return router
    }
}
