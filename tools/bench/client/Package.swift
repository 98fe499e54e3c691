// swift-tools-version: 6.1
// The client library's benchmarks (docs/PERFORMANCE.md, "Recording on the device"): a package of its own so that
// `swift test` at the top never builds it. tools/bench/client/run builds it in release and runs it.
import PackageDescription

let package = Package(
    name: "SessionStoreClientBench",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [.package(name: "SessionStore", path: "../../..")],
    targets: [
        .executableTarget(name: "client-bench", dependencies: [.product(name: "SessionStoreClient", package: "SessionStore")]),
    ]
)
