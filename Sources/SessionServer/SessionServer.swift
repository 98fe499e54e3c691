import Compliance
import EventLog
import Failures
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import NIOCore
import WebTokens

/// `sessionstore serve`: the store over HTTP/1.1 (docs/SERVER.md, docs/openapi.yaml).
///
/// Every route under `/v1` takes a bearer token (``AccessTokens``); errors answer RFC 9457 problems.
/// SIGTERM or SIGINT stop accepting connections, let requests in flight finish (an append in flight
/// is made durable and answered), and then the caller closes the store.
package struct SessionServer: Sendable {
    package let log: EventLog
    package let configuration: ServerConfiguration
    let metrics = ServerMetrics()
    let consoleState = ConsoleState()
    let reader: StoreReader

    package init(log: EventLog, configuration: ServerConfiguration = ServerConfiguration()) {
        self.log = log
        self.configuration = configuration
        reader = StoreReader(log: log)
    }

    /// Serves until SIGTERM or SIGINT; `ready` is called with the port once the server listens.
    package func run(ready: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        try await run(identityKeys: try identityKeys(), ready: ready)
    }

    /// ``run(ready:)`` with the identity provider's keys already read (``identityKeys()``), for a caller
    /// that tells which of them were left out.
    package func run(identityKeys keys: JSONWebKeySet?, ready: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        let idleTimeout = TimeAmount.seconds(configuration.idleTimeout.components.seconds)
        let router = router(identityKeys: keys)
        let channel = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: HTTP1Channel.Configuration(idleTimeout: idleTimeout),
            ws: .init(maxFrameSize: configuration.maximumLineBytes, closeTimeout: .seconds(5)))
        let webSocketResponder = router.buildResponder()
        let server = try serverBuilder { responder in
            HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder, configuration: channel)
        }
        let application = Application(
            router: router,
            server: server,
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), serverName: "sessionstore",
                availableConnectionsDelegate: MaximumAvailableConnections(configuration.maximumConnections)),
            onServerRunning: { channel in ready(channel.localAddress?.port ?? configuration.port) })
        defer { reader.stop() }
        try await application.runService()
    }

    /// The identity provider's keys, read once; a JWKS document without a usable key stops the server.
    package func identityKeys() throws -> JSONWebKeySet? {
        try configuration.identityTokens?.keys()
    }

    /// The routes, for ``run(ready:)`` and for tests that drive them without a socket.
    package func router(identityKeys: JSONWebKeySet? = nil) -> Router<ServerContext> {
        let router = Router(context: ServerContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: ProblemMiddleware(metrics: metrics))
        HealthRoutes(log: log, metrics: metrics).add(to: router)
        let authenticator = Authenticator(verifier: TokenVerifier(log: log), identity: zip(configuration.identityTokens, identityKeys), log: log)
        let v1 = router.group("v1").add(middleware: TokenAuthentication(authenticator: authenticator))
        if let rateLimit = configuration.rateLimit { v1.add(middleware: RateLimiting(limiter: RateLimiter(rateLimit))) }
        let appender = Appender(log: log, gate: AppendGate(capacity: configuration.maximumQueuedAppends), metrics: metrics,
                                committed: reader.committed)
        EventRoutes(log: log, configuration: configuration, appender: appender).add(to: v1)
        SessionRoutes(reader: reader).add(to: v1)
        LiveRoute(appender: appender, log: log, configuration: configuration).add(to: v1)
        SubjectRoutes(reader: reader).add(to: v1)
        ContentRoutes(reader: reader).add(to: v1)
        ProofRoutes(log: log).add(to: v1)
        IntegrityRoutes(log: log).add(to: v1)
        RunRoutes(reader: reader).add(to: v1)
        ReportedRunRoute(reader: reader, appender: appender).add(to: v1)
        WebConsole(reader: reader, authenticator: authenticator, secureCookies: configuration.tls != nil, state: consoleState).add(to: router)
        router.add(middleware: AllowedMethods(router.routes.map { ($0.path, $0.method) }))
        return router
    }
}

/// The server cannot start as configured; one sentence naming what is wrong.
package struct ServerSetupError: CodedError {
    package var code: ErrorCode<ServerSetupError> { .invalidSetup }
    package var message: String
}

extension ErrorCode where Domain == ServerSetupError {
    /// An option or file the server was given cannot be used.
    package static let invalidSetup = Self("invalid setup", .usage)
}

/// Both values, or nil when either is missing.
private func zip<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
