// swift-tools-version:6.1
// libFuzzer targets for the parsers that take untrusted input (issue 7). Not built by `make test`;
// `make fuzz` (scripts/fuzz.sh) builds them with `--sanitize=fuzzer --sanitize=address` and runs each
// for a bounded time on its corpus in Corpus/<target>/.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "VaultFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "vault", path: "../")
    ],
    targets: [
        .target(
            name: "FuzzSupport",
            dependencies: [.product(name: "Vault", package: "vault")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "TrackFuzzer",
            dependencies: ["FuzzSupport", .product(name: "Vault", package: "vault")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "EMVFuzzer",
            dependencies: ["FuzzSupport", .product(name: "Vault", package: "vault")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "JSONRequestFuzzer",
            dependencies: [
                "FuzzSupport",
                .product(name: "Vault", package: "vault"),
                .product(name: "Scheduler", package: "vault"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
