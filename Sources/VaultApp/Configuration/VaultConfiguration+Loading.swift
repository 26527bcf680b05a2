import Foundation
import Logging
import Payments
import Vault
import VaultAPI
import VaultPostgres
import Yams

extension VaultConfiguration {
    /// The configuration file read when none is named (`--config`, `VAULT_CONFIG`) and it exists.
    public static let defaultPath = "config/vault.yaml"

    /// Reads the configuration file, then applies the `VAULT_*` variables of `environment`.
    ///
    /// The file is `path` (`--config`), else the one `VAULT_CONFIG` names, else `config/vault.yaml`
    /// of the working directory if it exists; with none of them, the built-in defaults are used
    /// (``file`` is nil, and the start-up line says so). A file named explicitly must exist: a
    /// runner started with a wrong `--config` or `VAULT_CONFIG` stops instead of running on defaults.
    /// Unknown keys, wrong types and out-of-range values are errors naming the key.
    /// Without `environment`, the process environment is read, and the variables holding key
    /// material or a database password (`VAULT_MASTER_KEY`, `VAULT_MASTER_PASSPHRASE`,
    /// `VAULT_DATABASE_URL`) are then removed from it.
    /// - Throws: `ConfigurationError`.
    public static func load(path: String?, environment: [String: String]? = nil) throws -> VaultConfiguration {
        guard let environment else {
            defer { ProcessEnvironment.scrub(ProcessEnvironment.secretVariables) }
            return try load(path: path, environment: ProcessInfo.processInfo.environment)
        }
        var configuration = VaultConfiguration()
        let named = path ?? environment["VAULT_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        let filePath = named ?? defaultPath
        if FileManager.default.fileExists(atPath: filePath) {
            let text: String
            do {
                text = try String(contentsOfFile: filePath, encoding: .utf8)
            } catch {
                throw ConfigurationError(key: filePath, message: "cannot be read")
            }
            try configuration.apply(yaml: text, file: filePath)
            configuration.file = filePath
        } else if named != nil {
            let origin = path != nil ? "--config" : "VAULT_CONFIG"
            throw ConfigurationError(key: filePath, message: "no such configuration file (named by \(origin), from \(FileManager.default.currentDirectoryPath))")
        }
        try configuration.apply(environment: environment)
        try configuration.validate()
        return configuration
    }

    /// Applies a YAML document over the current values.
    mutating func apply(yaml text: String, file: String) throws {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw ConfigurationError(key: file, message: "is not valid YAML (\(error))")
        }
        guard let root else { return }
        let document = try ConfigNode(root, path: "")
        try document.allow([
            "server", "metrics", "database", "keys", "defaults", "schedules", "retry", "idempotency", "webhooks", "receipts", "runner", "logging",
            "rateLimit", "reversals", "duplicates", "reconcile", "console", "capture",
        ])
        if let node = try document.section("server") {
            try node.allow(Set(["host", "port", "maxBodyBytes", "requestTimeoutSeconds"] + Self.connectionKeys))
            if let value = try node.string("host") { server.host = value }
            if let value = try node.int("port", in: 0...65535) { server.port = value }
            if let value = try node.int("maxBodyBytes", in: 1024...(64 << 20)) { server.maxBodyBytes = value }
            if let value = try node.int("requestTimeoutSeconds", in: 1...3600) { server.requestTimeoutSeconds = value }
            try applyConnectionSettings(node)
        }
        if let node = try document.section("database") {
            try node.allow(["path", "readers", "url", "maxConnections", "passwordFile"])
            if let value = try node.string("path") { database.path = value }
            if let value = try node.int("readers", in: 1...64) { database.readers = value }
            if let value = try node.string("url"), !value.isEmpty { database.url = try Self.databaseURL(value, key: "database.url") }
            if let value = try node.int("maxConnections", in: 1...1000) { database.maxConnections = value }
            if let value = try node.string("passwordFile"), !value.isEmpty { database.passwordFile = value }
        }
        if let node = try document.section("keys") {
            try node.allow(["directory", "cryptoperiodDays"])
            if let value = try node.string("directory") { keys.directory = value }
            if let value = try node.int("cryptoperiodDays", in: 1...3650) { keys.cryptoperiodDays = value }
        }
        if let node = try document.section("defaults") {
            try node.allow(["timeZone", "gateway", "hour", "minute"])
            if let value = try node.string("timeZone") { defaults.timeZone = value }
            if let value = try node.string("gateway") { defaults.gateway = value }
            if let value = try node.int("hour", in: 0...23) { defaults.hour = value }
            if let value = try node.int("minute", in: 0...59) { defaults.minute = value }
        }
        if let node = try document.section("schedules") {
            try node.allow(["maxStepCount", "horizonDays", "confirmationTimeoutHours"])
            if let value = try node.int("maxStepCount", in: 1...100_000) { schedules.maxStepCount = value }
            if let value = try node.int("horizonDays", in: 1...3660) { schedules.horizonDays = value }
            if let value = try node.int("confirmationTimeoutHours", in: 1...8760) { schedules.confirmationTimeoutHours = value }
        }
        if let node = try document.section("retry") {
            try node.allow(["delaysDays", "maxAttempts", "pastDuePolicy"])
            if let value = try node.intList("delaysDays", each: 1...365) { retry.delaysDays = value }
            if let value = try node.int("maxAttempts", in: 1...20) { retry.maxAttempts = value }
            if let value = try node.string("pastDuePolicy") {
                guard let policy = PastDuePolicy(rawValue: value) else {
                    throw ConfigurationError(key: "retry.pastDuePolicy", message: "must be one of continue, pause, cancel (got '\(value)')")
                }
                retry.pastDuePolicy = policy
            }
        }
        if let node = try document.section("idempotency") {
            try node.allow(["retentionHours"])
            if let value = try node.int("retentionHours", in: 1...720) { idempotencyRetentionHours = value }
        }
        if let node = try document.section("capture") {
            try node.allow(["sessionRetentionHours"])
            if let value = try node.int("sessionRetentionHours", in: 1...720) { capture.sessionRetentionHours = value }
        }
        if let node = try document.section("runner") {
            try node.allow(["concurrency", "batchSize", "leaseSeconds", "gatewayRetries", "inDoubtGraceSeconds", "gatewayTimeoutSeconds", "unreachableLimit"])
            if let value = try node.int("concurrency", in: 1...1024) { runner.concurrency = value }
            if let value = try node.int("batchSize", in: 1...10_000) { runner.batchSize = value }
            if let value = try node.int("leaseSeconds", in: 10...86_400) { runner.leaseSeconds = value }
            if let value = try node.int("gatewayRetries", in: 0...10) { runner.gatewayRetries = value }
            if let value = try node.int("inDoubtGraceSeconds", in: 1...86_400) { runner.inDoubtGraceSeconds = value }
            if let value = try node.int("gatewayTimeoutSeconds", in: 1...600) { runner.gatewayTimeoutSeconds = value }
            if let value = try node.int("unreachableLimit", in: 1...100_000) { runner.unreachableLimit = value }
        }
        if let node = try document.section("console") {
            try node.allow(["lockoutAttempts", "lockoutMinutes", "idleMinutes", "absoluteHours"])
            if let value = try node.int("lockoutAttempts", in: 1...10) { console.lockoutAttempts = value }
            if let value = try node.int("lockoutMinutes", in: 30...1440) { console.lockoutMinutes = value }
            if let value = try node.int("idleMinutes", in: 1...15) { console.idleMinutes = value }
            if let value = try node.int("absoluteHours", in: 1...24) { console.absoluteHours = value }
        }
        if let node = try document.section("reconcile") {
            try node.allow(["intervalSeconds", "heldForReviewDays"])
            if let value = try node.int("intervalSeconds", in: 1...86_400) { reconcile.intervalSeconds = value }
            if let value = try node.int("heldForReviewDays", in: 1...90) { reconcile.heldForReviewDays = value }
        }
        if let node = try document.section("webhooks") {
            try node.allow([
                "timeoutSeconds", "retryHours", "initialBackoffSeconds", "maxBackoffSeconds", "batchSize", "pollSeconds", "keepDays",
                "allowPrivateTargets",
            ])
            if let value = try node.int("timeoutSeconds", in: 1...300) { webhooks.timeoutSeconds = value }
            if let value = try node.int("retryHours", in: 1...720) { webhooks.retryHours = value }
            if let value = try node.int("initialBackoffSeconds", in: 1...86_400) { webhooks.initialBackoffSeconds = value }
            if let value = try node.int("maxBackoffSeconds", in: 1...86_400) { webhooks.maxBackoffSeconds = value }
            if let value = try node.int("batchSize", in: 1...10_000) { webhooks.batchSize = value }
            if let value = try node.int("pollSeconds", in: 1...3600) { webhooks.pollSeconds = value }
            if let value = try node.int("keepDays", in: 1...3650) { webhooks.keepDays = value }
            if let value = try node.bool("allowPrivateTargets") { webhooks.allowPrivateTargets = value }
        }
        if let node = try document.section("receipts") {
            try node.allow([
                "sendmailCommand", "from", "maxAttempts", "initialBackoffSeconds", "maxBackoffSeconds", "pollSeconds", "leaseSeconds", "retentionDays",
            ])
            if let value = try node.string("sendmailCommand") { receipts.sendmailCommand = value }
            if let value = try node.string("from") { receipts.from = value }
            if let value = try node.int("maxAttempts", in: 1...100) { receipts.maxAttempts = value }
            if let value = try node.int("initialBackoffSeconds", in: 1...86_400) { receipts.initialBackoffSeconds = value }
            if let value = try node.int("maxBackoffSeconds", in: 1...86_400) { receipts.maxBackoffSeconds = value }
            if let value = try node.int("pollSeconds", in: 1...3600) { receipts.pollSeconds = value }
            if let value = try node.int("leaseSeconds", in: 10...86_400) { receipts.leaseSeconds = value }
            if let value = try node.int("retentionDays", in: 1...3650) { receipts.retentionDays = value }
        }
        if let node = try document.section("metrics") {
            try node.allow(["enabled", "host", "port"])
            if let value = try node.bool("enabled") { metrics.enabled = value }
            if let value = try node.string("host") { metrics.host = value }
            if let value = try node.int("port", in: 0...65535) { metrics.port = value }
        }
        if let node = try document.section("rateLimit") {
            try node.allow(["requestsPerSecond", "burst"])
            if let value = try node.int("requestsPerSecond", in: 0...1_000_000) { rateLimit.requestsPerSecond = value }
            if let value = try node.int("burst", in: 1...1_000_000) { rateLimit.burst = value }
        }
        if let node = try document.section("reversals") {
            try node.allow(["windowHours"])
            if let value = try node.int("windowHours", in: 1...720) { reversalWindowHours = value }
        }
        if let node = try document.section("duplicates") {
            try node.allow(["windowSeconds"])
            if let value = try node.int("windowSeconds", in: 0...86_400) { duplicateWindowSeconds = value }
        }
        if let node = try document.section("logging") {
            try node.allow(["level", "format"])
            if let value = try node.string("level") {
                guard let level = Logger.Level(rawValue: value) else {
                    throw ConfigurationError(key: "logging.level", message: "must be one of trace, debug, info, notice, warning, error, critical")
                }
                logging.level = level
            }
            if let value = try node.string("format") {
                guard value == "json" || value == "text" else { throw ConfigurationError(key: "logging.format", message: "must be json or text") }
                logging.format = value
            }
        }
    }

    /// The `server.` keys of the connection limits, failed-authentication limiter and TLS.
    private static let connectionKeys = [
        "headerReadTimeoutSeconds", "bodyReadTimeoutSeconds", "idleTimeoutSeconds", "maxConnections", "maxConnectionsPerAddress", "maxSearchesPerMerchant",
        "searchScanLimit", "captureSessionMinutes",
        "failedAuthLimit", "failedAuthWindowSeconds", "tls", "allowPlaintext",
    ]

    private mutating func applyConnectionSettings(_ node: ConfigNode) throws {
        if let value = try node.int("headerReadTimeoutSeconds", in: 1...300) { server.headerReadTimeoutSeconds = value }
        if let value = try node.int("bodyReadTimeoutSeconds", in: 1...300) { server.bodyReadTimeoutSeconds = value }
        if let value = try node.int("idleTimeoutSeconds", in: 1...3600) { server.idleTimeoutSeconds = value }
        if let value = try node.int("maxConnections", in: 1...1_000_000) { server.maxConnections = value }
        if let value = try node.int("maxConnectionsPerAddress", in: 1...1_000_000) { server.maxConnectionsPerAddress = value }
        if let value = try node.int("maxSearchesPerMerchant", in: 1...1_000) { server.maxSearchesPerMerchant = value }
        if let value = try node.int("searchScanLimit", in: 100...10_000_000) { server.searchScanLimit = value }
        if let value = try node.int("captureSessionMinutes", in: 1...1_440) { server.captureSessionMinutes = value }
        if let value = try node.int("failedAuthLimit", in: 1...1_000_000) { server.failedAuthLimit = value }
        if let value = try node.int("failedAuthWindowSeconds", in: 1...86_400) { server.failedAuthWindowSeconds = value }
        if let value = try node.bool("allowPlaintext") { server.allowPlaintext = value }
        if let tls = try node.section("tls") {
            try tls.allow(["certificateFile", "keyFile"])
            guard let certificate = try tls.string("certificateFile"), !certificate.isEmpty else {
                throw ConfigurationError(key: "server.tls.certificateFile", message: "is required with server.tls (a PEM certificate chain file)")
            }
            guard let key = try tls.string("keyFile"), !key.isEmpty else {
                throw ConfigurationError(key: "server.tls.keyFile", message: "is required with server.tls (a PEM private key file)")
            }
            server.tls = Server.TLS(certificateFile: certificate, keyFile: key)
        }
    }

    /// Applies the fixed `VAULT_*` environment variables.
    mutating func apply(environment: [String: String]) throws {
        if let value = environment["VAULT_HOST"], !value.isEmpty { server.host = value }
        if let value = environment["VAULT_PORT"] {
            guard let port = Int(value), (0...65535).contains(port) else {
                throw ConfigurationError(key: "VAULT_PORT", message: "must be a port number 0-65535")
            }
            server.port = port
        }
        if let value = environment["VAULT_METRICS_PORT"] {
            guard let port = Int(value), (0...65535).contains(port) else {
                throw ConfigurationError(key: "VAULT_METRICS_PORT", message: "must be a port number 0-65535")
            }
            metrics.port = port
        }
        if let value = environment["VAULT_DATABASE"], !value.isEmpty { database.path = value }
        if let value = environment["VAULT_DATABASE_URL"], !value.isEmpty { database.url = try Self.databaseURL(value, key: "VAULT_DATABASE_URL") }
        if let value = environment["VAULT_KEYS_DIR"], !value.isEmpty { keys.directory = value }
        if let value = environment["VAULT_MASTER_KEY"], !value.isEmpty { keys.masterKeyFromEnvironment = value }
        if let value = environment["VAULT_MASTER_PASSPHRASE"], !value.isEmpty { keys.passphraseFromEnvironment = value }
        if let value = environment["VAULT_TIME_ZONE"], !value.isEmpty { defaults.timeZone = value }
        try applyPasswordFile()
    }

    /// Puts the password of `database.passwordFile` (its first line) into the PostgreSQL URL, so it
    /// need not be written in the URL, the configuration file or the environment.
    /// - Throws: `ConfigurationError` on `database.passwordFile`: unreadable, empty, or given
    ///   beside a URL that carries a password already.
    mutating func applyPasswordFile() throws {
        guard let path = database.passwordFile, var url = database.url else { return }
        guard url.password == nil else {
            throw ConfigurationError(key: "database.passwordFile", message: "the database URL carries a password already; give it in one place")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(key: "database.passwordFile", message: "cannot read \(path)")
        }
        let password = String(decoding: data, as: UTF8.self).components(separatedBy: .newlines).first ?? ""
        guard !password.isEmpty else { throw ConfigurationError(key: "database.passwordFile", message: "\(path) is empty") }
        url.password = password
        database.url = url
    }

    /// A PostgreSQL URL, refused with a message that never repeats its password.
    static func databaseURL(_ text: String, key: String) throws -> PostgresURL {
        do {
            return try PostgresURL(text)
        } catch {
            throw ConfigurationError(key: key, message: error.description)
        }
    }

    /// Checks values that depend on each other or on the system.
    func validate() throws {
        guard TimeZone(identifier: defaults.timeZone) != nil else {
            throw ConfigurationError(key: "defaults.timeZone", message: "unknown IANA time zone '\(defaults.timeZone)'")
        }
        guard GatewayCatalogue.entry(named: defaults.gateway) != nil else {
            throw ConfigurationError(key: "defaults.gateway", message: "must be \(GatewayCatalogue.namesSentence)")
        }
        guard !retry.delaysDays.isEmpty else { throw ConfigurationError(key: "retry.delaysDays", message: "must list at least one delay") }
        guard !database.path.isEmpty else { throw ConfigurationError(key: "database.path", message: "must not be empty") }
    }
}

/// A YAML mapping with its dotted path, for error messages that name the key.
private struct ConfigNode {
    let mapping: Node.Mapping
    let path: String

    init(_ node: Node, path: String) throws {
        guard let mapping = node.mapping else {
            throw ConfigurationError(key: path.isEmpty ? "(top level)" : path, message: "must be a mapping of keys to values")
        }
        self.mapping = mapping
        self.path = path
    }

    func allow(_ keys: Set<String>) throws {
        for key in mapping.keys {
            let name = key.string ?? "?"
            guard keys.contains(name) else {
                throw ConfigurationError(key: qualified(name), message: "unknown key (allowed: \(keys.sorted().joined(separator: ", ")))")
            }
        }
    }

    func section(_ key: String) throws -> ConfigNode? {
        guard let node = mapping[key] else { return nil }
        if node.null != nil { return nil }
        return try ConfigNode(node, path: qualified(key))
    }

    func string(_ key: String) throws -> String? {
        guard let node = mapping[key] else { return nil }
        guard node.scalar != nil, let value = node.string else { throw ConfigurationError(key: qualified(key), message: "must be a string") }
        return value
    }

    func int(_ key: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let node = mapping[key] else { return nil }
        guard let value = node.int else { throw ConfigurationError(key: qualified(key), message: "must be an integer") }
        guard range.contains(value) else {
            throw ConfigurationError(key: qualified(key), message: "must be between \(range.lowerBound) and \(range.upperBound) (got \(value))")
        }
        return value
    }

    func bool(_ key: String) throws -> Bool? {
        guard let node = mapping[key] else { return nil }
        guard let scalar = node.scalar, scalar.string == "true" || scalar.string == "false" else {
            throw ConfigurationError(key: qualified(key), message: "must be true or false")
        }
        return scalar.string == "true"
    }

    func intList(_ key: String, each range: ClosedRange<Int>) throws -> [Int]? {
        guard let node = mapping[key] else { return nil }
        guard node.sequence != nil else { throw ConfigurationError(key: qualified(key), message: "must be a list of integers") }
        return try node.array().enumerated().map { index, element in
            guard let value = element.int, range.contains(value) else {
                throw ConfigurationError(
                    key: "\(qualified(key))[\(index)]", message: "must be an integer between \(range.lowerBound) and \(range.upperBound)")
            }
            return value
        }
    }

    private func qualified(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
}
