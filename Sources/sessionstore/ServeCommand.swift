#if Server
import ArgumentParser
import Foundation
import Output
import SessionServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the store over HTTP: append events, read sessions, transcripts and consent, tail the log.",
        discussion: """
            Prints `listening on http://HOST:PORT` once it accepts requests (--listen HOST:0 takes a free \
            port). Every request under /v1 carries an access token (Authorization: Bearer TOKEN) made by \
            `sessionstore tokens create --scope ingest --name app-backend`, say; /healthz, /readyz and /metrics take none. SIGTERM or SIGINT stop \
            accepting connections, let requests in flight finish, and close the store. HTTPS with \
            --tls-certificate and --tls-key in a build with the TLS trait (`swift build --traits TLS`); plain \
            HTTP otherwise: keep it on loopback (the default) or behind a TLS proxy to serve other machines. Routes, answers and \
            limits: docs/SERVER.md and docs/openapi.yaml.

              sessionstore tokens create --scope ingest --name app-backend
              sessionstore serve --listen 127.0.0.1:8440
              curl -H "Authorization: Bearer $TOKEN" --data-binary @events.ndjson http://127.0.0.1:8440/v1/events
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .customLong("listen"), help: ArgumentHelp("HOST:PORT to listen on.", valueName: "address"))
    var listen = "127.0.0.1:8440"

    @Option(name: .customLong("max-body-bytes"), help: ArgumentHelp("The largest body POST /v1/events takes (413 above it).", valueName: "bytes"))
    var maximumBodyBytes = ServerConfiguration().maximumBodyBytes

    @Option(name: .customLong("max-connections"), help: ArgumentHelp("Connections served at once; more wait to be accepted.", valueName: "count"))
    var maximumConnections = ServerConfiguration().maximumConnections

    @Option(name: .customLong("max-queued-appends"), help: ArgumentHelp(
        "Appends waiting for the store at once; one more is answered 503 with Retry-After.", valueName: "count"))
    var maximumQueuedAppends = ServerConfiguration().maximumQueuedAppends

    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp("Seconds after which a silent connection is closed.", valueName: "seconds"))
    var idleTimeout = Int(ServerConfiguration().idleTimeout.components.seconds)

    @Option(name: .customLong("header-timeout"), help: ArgumentHelp(
        "Seconds a new connection has to send its first request head whole.", valueName: "seconds"))
    var headerTimeout = Int(ServerConfiguration().headTimeout.components.seconds)

    @Option(name: .customLong("rate-limit"), help: ArgumentHelp(
        "Requests each token may make a second, on average; one more is answered 429 with Retry-After. None by default.",
        valueName: "per-second"))
    var rateLimit: Double?

    @Option(name: .customLong("rate-burst"), help: ArgumentHelp(
        "With --rate-limit: requests a token may make at once (default: twice the rate, at least 1).", valueName: "count"))
    var rateBurst: Int?

    @Option(name: .customLong("tls-certificate"), help: ArgumentHelp(
        "Serve HTTPS (and WSS) with this certificate chain (PEM); with --tls-key. Needs a build with `--traits TLS`.",
        valueName: "file"))
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("The private key (PEM) of --tls-certificate.", valueName: "file"))
    var tlsKey: String?

    @Option(name: .customLong("jwks"), help: ArgumentHelp(
        "Also accept JWTs signed with these keys (a JWKS file, as an identity provider publishes at /.well-known/jwks.json).",
        valueName: "file"))
    var jwks: String?

    @Option(name: .customLong("jwt-issuer"), help: ArgumentHelp("With --jwks: the iss a JWT must carry.", valueName: "issuer"))
    var jwtIssuer: String?

    @Option(name: .customLong("jwt-audience"), help: ArgumentHelp("With --jwks: an aud a JWT must include.", valueName: "audience"))
    var jwtAudience: String?

    func validate() throws {
        guard listenAddress(listen) != nil else { throw ValidationError("--listen \(listen) is not HOST:PORT") }
        guard maximumBodyBytes > 0, maximumConnections > 0, maximumQueuedAppends > 0, idleTimeout > 0, headerTimeout > 0 else {
            throw ValidationError("--max-body-bytes, --max-connections, --max-queued-appends, --idle-timeout and --header-timeout must be positive")
        }
        if let rateLimit, !(rateLimit > 0 && rateLimit.isFinite) { throw ValidationError("--rate-limit \(rateLimit) must be a positive number of requests a second") }
        if let rateBurst, rateBurst < 1 { throw ValidationError("--rate-burst \(rateBurst) must be at least 1") }
        if rateBurst != nil, rateLimit == nil { throw ValidationError("--rate-burst goes with --rate-limit: give the rate too") }
        if (tlsCertificate == nil) != (tlsKey == nil) {
            throw ValidationError("--tls-certificate and --tls-key go together: give both, or neither for plain HTTP")
        }
        if jwks == nil, jwtIssuer != nil || jwtAudience != nil {
            throw ValidationError("--jwt-issuer and --jwt-audience check JWTs: give the identity provider's keys with --jwks")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let log = try storeOptions.openLog()
            var configuration = ServerConfiguration()
            (configuration.host, configuration.port) = listenAddress(listen)!
            configuration.maximumBodyBytes = maximumBodyBytes
            configuration.maximumConnections = maximumConnections
            configuration.maximumQueuedAppends = maximumQueuedAppends
            configuration.idleTimeout = .seconds(idleTimeout)
            configuration.headTimeout = .seconds(headerTimeout)
            if let rateLimit { configuration.rateLimit = RateLimit(perSecond: rateLimit, burst: rateBurst ?? max(1, Int((2 * rateLimit).rounded(.up)))) }
            if let tlsCertificate, let tlsKey { configuration.tls = (tlsCertificate, tlsKey) }
            if let jwks {
                let document: String
                do { document = try String(contentsOfFile: jwks, encoding: .utf8) } catch {
                    throw CommandFailure(.usage, "cannot read --jwks \(jwks): \(error.localizedDescription)")
                }
                configuration.identityTokens = IdentityTokens(jwks: document, issuer: jwtIssuer, audience: jwtAudience)
            }
            let host = configuration.host, scheme = configuration.tls == nil ? "http" : "https"
            let server = SessionServer(log: log, configuration: configuration)
            let keys = try server.identityKeys()
            for reason in keys?.skipped ?? [] { Console.err("serve: --jwks: \(reason); it is not used\n") }
            try await server.run(identityKeys: keys) { bound in
                // One write(2), unbuffered: whoever waits for this line sees it at once.
                Console.out("listening on \(scheme)://\(host):\(bound)\n")
            }
            try log.close()
        }
    }
}
#endif
