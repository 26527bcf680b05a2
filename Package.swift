// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "vault",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "vault", targets: ["vault"]),
        .library(name: "Vault", targets: ["Vault"]),
        .library(name: "VaultSQLite", targets: ["VaultSQLite"]),
        .library(name: "Payments", targets: ["Payments"]),
        .library(name: "Scheduler", targets: ["Scheduler"]),
        .library(name: "VaultAPI", targets: ["VaultAPI"]),
        // The bodies of the libFuzzer targets and the benchmark workloads, for the side packages
        // Fuzz/ and Benchmarks/ (which hold only entry points); not part of the `vault` product.
        .library(name: "FuzzHarness", targets: ["FuzzHarness"]),
        .library(name: "BenchmarkScenarios", targets: ["BenchmarkScenarios"]),
        .library(name: "VaultApp", targets: ["VaultApp"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        .target(
            name: "Vault",
            dependencies: [
                "CSodium",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Payments",
            dependencies: [
                "Vault",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Scheduler",
            dependencies: [
                "Vault",
                "Payments",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // Loopback fakes of the real gateways, shared by the tests and the `fake-gateway`
        // executable (crash test); not part of the `vault` product.
        .target(
            name: "GatewayFakes",
            dependencies: [
                "Vault",
                "Payments",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "fake-gateway",
            dependencies: [
                "GatewayFakes",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The embedded storage engine: SQLite and every store protocol over it. The domain
        // modules above know no engine; VaultAPI picks one at start.
        .target(
            name: "VaultSQLite",
            dependencies: [
                "Vault",
                "Payments",
                "Scheduler",
                "CSQLite",
                "CSodium",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The operator console: server-rendered pages under /console over the same domain
        // services as the API; VaultAPI mounts it on its router.
        .target(
            name: "VaultConsole",
            dependencies: [
                "Vault",
                "Payments",
                "Scheduler",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "VaultAPI",
            dependencies: [
                "Vault",
                "Payments",
                "Scheduler",
                "VaultConsole",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Yams", package: "Yams"),
            ],
            resources: [
                .copy("OpenAPI/openapi.yaml"),
                // The hosted card field, compiled into the binary: served as they are, no third-party code.
                .embedInCode("Capture/Assets/capture-v1.js"), .embedInCode("Capture/Assets/frame.html"),
                .embedInCode("Capture/Assets/frame.js"), .embedInCode("Capture/Assets/frame.css"),
            ],
            swiftSettings: swiftSettings
        ),
        // The PostgreSQL storage engine: every store protocol over postgres-nio's pool, for
        // several servers and runners on one database.
        .target(
            name: "VaultPostgres",
            dependencies: [
                "Vault",
                "Payments",
                "Scheduler",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        // The composition root: command line, configuration, runtime wiring and logging over the
        // HTTP server (VaultAPI), the domain modules and both storage engines.
        .target(
            name: "VaultApp",
            dependencies: [
                "Vault",
                "Payments",
                "Scheduler",
                "VaultSQLite",
                "VaultPostgres",
                "VaultAPI",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "vault",
            dependencies: ["VaultApp"],
            swiftSettings: swiftSettings
        ),
        // Binds the schedule and step rows the benchmark seeder copies in SQL, with the vault's own
        // keys (scripts/seed_due_steps.py); for the runner benchmarks and the crash test only.
        .executableTarget(
            name: "benchmark-seed-binder",
            dependencies: [
                "VaultApp",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The workload of the instruction-budget guard (scripts/instruction-budget.sh): N of one
        // operation on a fresh SQLite vault, counted under callgrind; not part of the `vault` product.
        .executableTarget(
            name: "instruction-budget",
            dependencies: [
                "Vault",
                "Payments",
                "Scheduler",
                "VaultSQLite",
                "VaultAPI",
                "VaultApp",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The bodies of the libFuzzer targets in Fuzz/ and their property checks: compiled by the main
        // build and replayed on the committed corpora by FuzzHarnessTests, so a move that breaks a
        // fuzz target fails `make test`.
        .target(
            name: "FuzzHarness",
            dependencies: ["Vault", "Payments", "Scheduler", "VaultAPI"],
            swiftSettings: swiftSettings
        ),
        // The workloads of the benchmarks in Benchmarks/: compiled by the main build and run once at
        // a small size by BenchmarkScenariosTests (the PostgreSQL ones on the test passes' server).
        .target(
            name: "BenchmarkScenarios",
            dependencies: [
                "Vault",
                "Payments",
                "Scheduler",
                "VaultSQLite",
                "VaultPostgres",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // What every test module needs to run on either engine: `TestDatabase`, `TestSQL`,
        // `TestEngine` and the PostgreSQL template databases.
        .target(
            name: "StorageTestSupport",
            dependencies: [
                "Vault",
                "Scheduler",
                "VaultSQLite",
                "VaultPostgres",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tests/StorageTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FuzzHarnessTests",
            dependencies: ["FuzzHarness", "Vault"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BenchmarkScenariosTests",
            dependencies: ["BenchmarkScenarios", "Scheduler", "Vault"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "VaultTests",
            dependencies: [
                "StorageTestSupport",
                "Vault",
                "VaultSQLite",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PaymentsTests",
            dependencies: [
                "StorageTestSupport",
                "Payments",
                "VaultSQLite",
                "GatewayFakes",
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SchedulerTests",
            dependencies: [
                "StorageTestSupport",
                "Scheduler",
                "VaultSQLite",
                "Payments",
                "GatewayFakes",
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "VaultPostgresTests",
            dependencies: [
                "StorageTestSupport",
                "VaultPostgres",
                "VaultSQLite",
                "Vault",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // One suite of the guarantees the store protocols document, run unchanged on each engine
        // (`VAULT_TEST_ENGINE`), and the parity of the two engines' schemas.
        .testTarget(
            name: "StoreConformanceTests",
            dependencies: [
                "StorageTestSupport",
                "Vault",
                "Payments",
                "Scheduler",
                "VaultSQLite",
                "VaultPostgres",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The fixtures that start the whole vault, shared by VaultAPITests and VaultAppTests: an
        // in-process server over a `VaultRuntime` (`APIFixture`), the `vault` binary as a subprocess
        // (`VaultProcess`, `ServerProcess`, `Subprocess`) and an NMI merchant behind the fake.
        .target(
            name: "VaultAppTestSupport",
            dependencies: [
                "StorageTestSupport",
                "Vault",
                "Scheduler",
                "VaultAPI",
                "VaultApp",
                "GatewayFakes",
                "VaultSQLite",
                "VaultPostgres",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/VaultAppTestSupport",
            swiftSettings: swiftSettings
        ),
        // The HTTP API's behaviour. It depends on VaultApp for its fixture: `APIFixture` serves the
        // API through `VaultRuntime`, configured by a `VaultConfiguration`, as `vault serve` does.
        .testTarget(
            name: "VaultAPITests",
            dependencies: [
                "VaultAppTestSupport",
                "StorageTestSupport",
                "VaultAPI",
                "VaultApp",
                "GatewayFakes",
                "VaultSQLite",
                "Payments",
                "VaultPostgres",
                "CSodium",
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
        // VaultApp: the command line, configuration, logging and runtime wiring, and the `vault`
        // binary run as a process.
        .testTarget(
            name: "VaultAppTests",
            dependencies: [
                "VaultAppTestSupport",
                "StorageTestSupport",
                "VaultAPI",
                "VaultApp",
                "GatewayFakes",
                "VaultSQLite",
                "Payments",
                "VaultPostgres",
                "CSodium",
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
