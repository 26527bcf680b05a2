import Foundation
import NIOSSL
public import PostgresNIO

/// A `postgres://` URL as operators write it for libpq and every PostgreSQL tool, read into the
/// settings postgres-nio needs.
///
/// `postgres://user:password@host:port,host2:port2/dbname?sslmode=require&target_session_attrs=read-write`
/// (also `postgresql://`). Several hosts name a primary and its standbys: the engine connects to the
/// first one that accepts writes when `target_session_attrs=read-write`, as libpq does. The password
/// never appears in `description` (logs, errors).
public struct PostgresURL: Sendable, Equatable, CustomStringConvertible {
    /// One `host:port` of the URL.
    public struct Host: Sendable, Equatable {
        public var name: String
        public var port: Int

        public init(name: String, port: Int = 5432) {
            self.name = name
            self.port = port
        }
    }

    /// How much TLS the server must offer (libpq's `sslmode`).
    public enum TLSMode: String, Sendable, CaseIterable {
        /// No TLS.
        case disable
        /// TLS when the server offers it, without checking its certificate (libpq's default).
        case prefer
        /// TLS or no connection; the certificate is not checked.
        case require
        /// TLS with a certificate signed by a trusted authority (`sslrootcert` or the system store).
        case verifyCA = "verify-ca"
        /// As `verify-ca`, and the certificate names the host.
        case verifyFull = "verify-full"
    }

    /// Which server of several to use (libpq's `target_session_attrs`).
    public enum TargetSession: String, Sendable {
        /// The first that accepts a connection.
        case any
        /// The first that is not in recovery (a primary).
        case readWrite = "read-write"
    }

    /// Refused URLs; the message never repeats the password.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    public var hosts: [Host]
    public var username: String
    public var password: String?
    public var database: String
    public var tlsMode: TLSMode
    /// `sslrootcert`: a PEM file of authorities to trust for `verify-ca`/`verify-full`.
    public var rootCertificatePath: String?
    public var targetSession: TargetSession
    /// `application_name`, shown in `pg_stat_activity`.
    public var applicationName: String?
    /// Connections per process at most (not part of the URL: `database.maxConnections`).
    public var maximumConnections = 20

    /// Parses a URL; refuses unknown schemes, a missing database, a port out of range, an unknown
    /// `sslmode` or `target_session_attrs`, and unknown query parameters (a typo must not silently
    /// weaken TLS).
    public init(_ text: String) throws(Invalid) {
        guard let schemeEnd = text.range(of: "://") else { throw Invalid(description: "a database URL starts with postgres://") }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw Invalid(description: "unsupported database URL scheme '\(scheme)' (postgres:// or postgresql://)")
        }
        var rest = Substring(text[schemeEnd.upperBound...])
        var query = Substring("")
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var path = Substring("")
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        var userInfo: Substring?
        if let at = rest.lastIndex(of: "@") {
            userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
        }
        var username = ""
        var password: String?
        if let userInfo {
            if let colon = userInfo.firstIndex(of: ":") {
                username = Self.decode(userInfo[..<colon])
                password = Self.decode(userInfo[userInfo.index(after: colon)...])
            } else {
                username = Self.decode(userInfo)
            }
        }
        guard !username.isEmpty else { throw Invalid(description: "the database URL names no user (postgres://USER@host/db)") }
        var hosts: [Host] = []
        for part in rest.split(separator: ",", omittingEmptySubsequences: false) {
            hosts.append(try Self.host(part))
        }
        guard !hosts.isEmpty, !hosts.contains(where: { $0.name.isEmpty }) else {
            throw Invalid(description: "the database URL names no host (postgres://user@HOST:5432/db)")
        }
        let database = Self.decode(path)
        guard !database.isEmpty else { throw Invalid(description: "the database URL names no database (postgres://user@host/DBNAME)") }
        self.hosts = hosts
        self.username = username
        self.password = password
        self.database = database
        self.tlsMode = .prefer
        self.targetSession = .any
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decode(parts[0])
            let value = parts.count > 1 ? Self.decode(parts[1]) : ""
            switch name {
            case "sslmode":
                guard let mode = TLSMode(rawValue: value) else {
                    throw Invalid(description: "unknown sslmode '\(value)' (\(TLSMode.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                tlsMode = mode
            case "sslrootcert":
                rootCertificatePath = value
            case "target_session_attrs":
                guard let target = TargetSession(rawValue: value) else {
                    throw Invalid(description: "unsupported target_session_attrs '\(value)' (any, read-write)")
                }
                targetSession = target
            case "application_name":
                applicationName = value
            default:
                throw Invalid(description: "unknown database URL parameter '\(name)'")
            }
        }
    }

    /// The URL with the password replaced by `***`.
    public var description: String {
        let user = password == nil ? username : "\(username):***"
        let hostList = hosts.map { "\($0.name):\($0.port)" }.joined(separator: ",")
        var parameters = ["sslmode=\(tlsMode.rawValue)"]
        if targetSession != .any { parameters.append("target_session_attrs=\(targetSession.rawValue)") }
        return "postgres://\(user)@\(hostList)/\(database)?\(parameters.joined(separator: "&"))"
    }

    /// postgres-nio's settings for one of the hosts.
    /// - Throws: NIOSSL errors when `sslrootcert` cannot be read.
    public func clientConfiguration(host: Host) throws -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host.name, port: host.port, username: username, password: password, database: database, tls: try tls(host: host))
        configuration.options.maximumConnections = maximumConnections
        if let applicationName {
            configuration.options.additionalStartupParameters.append(("application_name", applicationName))
        }
        return configuration
    }

    /// One connection's settings for `host`, for probing which server is the primary: a refused
    /// or silent host fails within `connectTimeout` instead of the pool's retries.
    public func connectionConfiguration(host: Host, connectTimeout: TimeAmount) throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        if let settings = try tlsSettings() {
            let context = try NIOSSLContext(configuration: settings)
            tls = tlsMode == .prefer ? .prefer(context) : .require(context)
        } else {
            tls = .disable
        }
        var configuration = PostgresConnection.Configuration(
            host: host.name, port: host.port, username: username, password: password, database: database, tls: tls)
        configuration.options.connectTimeout = connectTimeout
        return configuration
    }

    private func tls(host: Host) throws -> PostgresClient.Configuration.TLS {
        guard let settings = try tlsSettings() else { return .disable }
        return tlsMode == .prefer ? .prefer(settings) : .require(settings)
    }

    private func tlsSettings() throws -> TLSConfiguration? {
        var tls = TLSConfiguration.makeClientConfiguration()
        switch tlsMode {
        case .disable:
            return nil
        case .prefer, .require:
            tls.certificateVerification = .none
        case .verifyCA:
            tls.certificateVerification = .noHostnameVerification
        case .verifyFull:
            tls.certificateVerification = .fullVerification
        }
        if let rootCertificatePath {
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(rootCertificatePath))
        }
        return tls
    }

    private static func host(_ text: Substring) throws(Invalid) -> Host {
        var name = text
        var port = 5432
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            name = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if after.hasPrefix(":") { port = try Self.port(after.dropFirst()) }
        } else if let colon = text.lastIndex(of: ":") {
            name = text[..<colon]
            port = try Self.port(text[text.index(after: colon)...])
        }
        return Host(name: decode(name), port: port)
    }

    private static func port(_ text: Substring) throws(Invalid) -> Int {
        guard let port = Int(text), (1...65535).contains(port) else { throw Invalid(description: "database URL port '\(text)' is not 1-65535") }
        return port
    }

    private static func decode(_ text: Substring) -> String {
        String(text).removingPercentEncoding ?? String(text)
    }
}
