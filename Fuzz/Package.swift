// swift-tools-version:6.1
// libFuzzer entry points for the parsers that take untrusted input. Each executable holds only its
// `LLVMFuzzerTestOneInput`; the bodies and their property checks are the vault's `FuzzHarness`
// module, which `swift build --build-tests` compiles and whose tests replay Corpus/<target>/, so a
// change that breaks them fails `make test`. `make fuzz` (scripts/fuzz.sh) builds this package with
// `--sanitize=fuzzer --sanitize=address` and runs each target for a bounded time on its corpus.
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
        .executableTarget(
            name: "TrackFuzzer",
            dependencies: [.product(name: "FuzzHarness", package: "vault")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "EMVFuzzer",
            dependencies: [.product(name: "FuzzHarness", package: "vault")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "JSONRequestFuzzer",
            dependencies: [.product(name: "FuzzHarness", package: "vault")],
            swiftSettings: swiftSettings
        ),
    ]
)
