// swift-tools-version: 6.0
// The EventLog benchmarks: a package of its own so that `swift test` at the top never builds it.
// Run everything, C reference included, with tools/bench/run.
import PackageDescription

let package = Package(
    name: "SessionStoreBench",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "SessionStore", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "eventlog-bench",
            dependencies: [
                .product(name: "EventLog", package: "SessionStore"),
                .product(name: "SessionModel", package: "SessionStore"),
                .product(name: "SessionLog", package: "SessionStore"),
                .product(name: "Ingest", package: "SessionStore"),
                .product(name: "Migrations", package: "SessionStore"),
                .product(name: "Projections", package: "SessionStore"),
                .product(name: "Audio", package: "SessionStore"),
                .product(name: "Replay", package: "SessionStore"),
                .product(name: "Compliance", package: "SessionStore"),
            ]
        ),
    ]
)
