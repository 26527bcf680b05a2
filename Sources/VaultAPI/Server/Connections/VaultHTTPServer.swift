import Foundation
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import Vault
#if canImport(Glibc)
import Glibc
#endif

/// The HTTP listener of `vault serve`: HTTP/1.1, over TLS when `server.tls` is set, every
/// connection behind a ``ConnectionGuardHandler``.
public enum VaultHTTPServer {
    /// Descriptors kept free for everything that is not a client connection (database, log, key files).
    static let reservedDescriptors = 256

    /// The largest request head accepted (a 400 and the connection closed beyond it): API requests
    /// carry a few short headers, and a flood of half-sent heads may hold this much per connection
    /// (Hummingbird's default is 80 KiB).
    static let headLimits = HTTP1Channel.Configuration.DecoderConfiguration(
        maxHeaderFieldSize: 8 * 1024, maxHeaderListSize: 16 * 1024, maxHeaderFieldCount: 100)

    /// The server builder for `settings`.
    /// - Parameter connections: the caps' counter (tests read it); a new one of `maxConnections` and
    ///   `maxConnectionsPerAddress` by default.
    /// - Throws: `ConfigurationError` naming the setting when plain HTTP would be served beyond
    ///   loopback without `server.allowPlaintext`, or when the TLS files cannot be used.
    static func builder(_ settings: HTTPServerSettings, connections: OpenConnections? = nil) throws -> HTTPServerBuilder {
        try checkPlaintext(settings)
        let tls = try settings.tls.map(tlsConfiguration)
        let policy = ConnectionPolicy(
            timeouts: .init(
                headerRead: .seconds(Int64(settings.headerReadTimeoutSeconds)),
                bodyRead: .seconds(Int64(settings.bodyReadTimeoutSeconds)),
                idle: .seconds(Int64(settings.idleTimeoutSeconds)),
                linger: .seconds(Int64(min(settings.bodyReadTimeoutSeconds, 5)))),
            connections: connections ?? OpenConnections(limit: settings.maxConnections, limitPerAddress: settings.maxConnectionsPerAddress),
            answersRefusals: tls == nil)
        return HTTPServerBuilder { responder in
            let http = HTTP1Channel(
                responder: responder,
                configuration: .init(additionalChannelHandlers: [HTTPExchangeObserver()], idleTimeout: nil, httpDecoderConfiguration: headLimits))
            guard let tls else { return GuardedServerChannel(base: http, policy: policy) }
            return GuardedServerChannel(base: try TLSChannel(http, tlsConfiguration: tls), policy: policy)
        }
    }

    /// Refuses plain HTTP on an address other than loopback unless `server.allowPlaintext` is true.
    public static func checkPlaintext(_ settings: HTTPServerSettings) throws {
        guard settings.tls == nil, !settings.allowPlaintext, !isLoopback(host: settings.host) else { return }
        throw ConfigurationError(
            key: "server.allowPlaintext",
            message: "refusing to serve plain HTTP on \(settings.host), which is not a loopback address: API keys and card data "
                + "would cross the network in clear. Set server.tls (certificateFile, keyFile), or server.allowPlaintext: true "
                + "when a TLS-terminating proxy on a trusted network sits in front")
    }

    /// Whether `host` names only this machine: `localhost`, `127.0.0.0/8`, `::1` (or `::ffff:127.x.y.z`).
    static func isLoopback(host: String) -> Bool {
        host.lowercased() == "localhost" || NetworkAddress(literal: host)?.scope == .loopback
    }

    /// The server TLS configuration from the PEM files (TLS 1.2 at least).
    static func tlsConfiguration(_ files: HTTPServerSettings.TLS) throws -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(files.certificateFile)
        } catch {
            throw ConfigurationError(key: "server.tls.certificateFile", message: "cannot be read as a PEM certificate chain (\(files.certificateFile))")
        }
        guard !chain.isEmpty else {
            throw ConfigurationError(key: "server.tls.certificateFile", message: "holds no certificate (\(files.certificateFile))")
        }
        if let mode = (try? FileManager.default.attributesOfItem(atPath: files.keyFile))?[.posixPermissions] as? Int, mode & 0o007 != 0 {
            throw ConfigurationError(
                key: "server.tls.keyFile", message: "is accessible to every user (mode \(String(mode, radix: 8))); run chmod 600 \(files.keyFile)")
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: files.keyFile, format: .pem)
        } catch {
            throw ConfigurationError(key: "server.tls.keyFile", message: "cannot be read as a PEM private key (\(files.keyFile))")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        return configuration
    }

    /// Raises the open-files limit so `maxConnections` connections fit beside the vault's own
    /// descriptors, and returns the cap that fits (lower than configured, with a warning, when the
    /// hard limit is too low).
    static func fittedConnectionLimit(_ configured: Int, logger: Logger) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return configured }
        let wanted = rlim_t(configured + reservedDescriptors)
        if limit.rlim_cur < wanted {
            var raised = limit
            raised.rlim_cur = min(wanted, limit.rlim_max)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        let fits = max(1, Int(limit.rlim_cur) - reservedDescriptors)
        guard fits < configured else { return configured }
        logger.warning(
            "server.maxConnections lowered to fit the open-files limit",
            metadata: ["configured": "\(configured)", "effective": "\(fits)", "openFilesLimit": "\(limit.rlim_cur)"])
        return fits
    }
}
