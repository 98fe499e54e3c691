import HummingbirdCore
import NIOCore
#if TLS
import HummingbirdTLS
import NIOSSL
#endif

extension SessionServer {
    /// Whether this build serves HTTPS: the package trait `TLS` (`swift build --traits TLS`), which brings
    /// in swift-nio-ssl and its BoringSSL; the default build leaves them out (docs/PERFORMANCE.md, "Build").
    #if TLS
    package static let supportsTLS = true
    #else
    package static let supportsTLS = false
    #endif

    /// The one sentence a server configured for TLS in a build without it fails with.
    static let tlsMissing = ServerSetupError(message: """
        this sessionstore was built without TLS: build it with `swift build --traits TLS` \
        (docs/SERVER.md, "TLS"), or serve plain HTTP behind a TLS proxy
        """)

    /// Each connection's channel: `http`, inside TLS when ``ServerConfiguration/tls`` names a certificate.
    func serverBuilder<Inner: ServerChildChannel>(
        _ http: @escaping @Sendable (@escaping HTTPChannelHandler.Responder) -> Inner
    ) throws -> HTTPServerBuilder {
        let metrics = self.metrics
        let idleTimeout = TimeAmount.seconds(configuration.idleTimeout.components.seconds)
        let headTimeout = TimeAmount.seconds(configuration.headTimeout.components.seconds)
        #if TLS
        if let tls = try tlsConfiguration() {
            return HTTPServerBuilder { responder in
                GuardedChannel(inner: try TLSChannel(http(responder), tlsConfiguration: tls),
                               idleTimeout: idleTimeout, headTimeout: headTimeout, metrics: metrics)
            }
        }
        #else
        guard configuration.tls == nil else { throw Self.tlsMissing }
        #endif
        return HTTPServerBuilder { responder in
            GuardedChannel(inner: http(responder), idleTimeout: idleTimeout, headTimeout: headTimeout, metrics: metrics)
        }
    }

    #if TLS
    /// The TLS configuration of ``ServerConfiguration/tls``, its files read once; nil for plain HTTP.
    func tlsConfiguration() throws -> TLSConfiguration? {
        guard let (chain, key) = configuration.tls else { return nil }
        do {
            let certificates = try NIOSSLCertificate.fromPEMFile(chain)
            guard !certificates.isEmpty else { throw ServerSetupError(message: "\(chain) holds no PEM certificate") }
            return TLSConfiguration.makeServerConfiguration(certificateChain: certificates.map { .certificate($0) },
                                                            privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
        } catch let error as ServerSetupError {
            throw error
        } catch {
            throw ServerSetupError(message: "cannot use the TLS certificate \(chain) and key \(key): \(error)")
        }
    }
    #endif
}
