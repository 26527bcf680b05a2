// swift-tools-version:6.1
// A client generated from the vault's served OpenAPI document by apple/swift-openapi-generator,
// running the README's quick-start flow against a live server (`make clients`, issue 14). Not
// part of the vault package nor of `make test`: the generator and its dependencies take minutes
// to build from scratch (numbers in docs/decisions/http-api-and-contract.md). `scripts/clients-test.sh` writes
// Sources/QuickStart/openapi.json from the live server before building, so a document that the
// generator cannot read or whose types do not fit the server's answers fails `make clients`.
import PackageDescription

let package = Package(
    name: "GeneratedClient",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator.git", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.7.0"),
    ],
    targets: [
        .executableTarget(
            name: "QuickStart",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        )
    ]
)
