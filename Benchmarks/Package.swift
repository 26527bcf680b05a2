// swift-tools-version:6.1
// ordo-one/benchmark entry points (`make benchmarks`). Each executable only registers its
// benchmarks; the workloads are the vault's `BenchmarkScenarios` module, which
// `swift build --build-tests` compiles and its tests run once at a small size, so a change that
// breaks them fails `make test` rather than only this package.
import PackageDescription

let benchmarkPlugin: [Target.PluginUsage] = [.plugin(name: "BenchmarkPlugin", package: "benchmark")]

let package = Package(
    name: "VaultBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "vault", path: "../"),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "StorageBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "BenchmarkScenarios", package: "vault"),
                .product(name: "Scheduler", package: "vault"),
                .product(name: "Vault", package: "vault"),
            ],
            path: "Benchmarks/StorageBenchmarks",
            plugins: benchmarkPlugin
        ),
        .executableTarget(
            name: "VaultBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "BenchmarkScenarios", package: "vault"),
                .product(name: "Scheduler", package: "vault"),
                .product(name: "Vault", package: "vault"),
            ],
            path: "Benchmarks/VaultBenchmarks",
            plugins: benchmarkPlugin
        ),
        .executableTarget(
            name: "PostgresBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "BenchmarkScenarios", package: "vault"),
            ],
            path: "Benchmarks/PostgresBenchmarks",
            plugins: benchmarkPlugin
        ),
        .executableTarget(
            name: "PlanBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "BenchmarkScenarios", package: "vault"),
                .product(name: "Scheduler", package: "vault"),
                .product(name: "Vault", package: "vault"),
            ],
            path: "Benchmarks/PlanBenchmarks",
            plugins: benchmarkPlugin
        ),
    ]
)
