// swift-tools-version: 6.0
// The EventLog benchmarks: a package of its own so that `swift test` at the top never builds it.
// Run everything, C reference and SQLite peers included, with tools/bench/run.
import PackageDescription

let package = Package(
    name: "SessionStoreBench",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "SessionStore", path: "../.."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.3"),
    ],
    targets: [
        .executableTarget(
            name: "eventlog-bench",
            dependencies: [
                "BenchSupport",
                .product(name: "EventLog", package: "SessionStore"),
                .product(name: "EventLogPostgres", package: "SessionStore"),
                .product(name: "SessionModel", package: "SessionStore"),
                .product(name: "SessionLog", package: "SessionStore"),
                .product(name: "Ingest", package: "SessionStore"),
                .product(name: "SessionAudio", package: "SessionStore"),
                .product(name: "Migrations", package: "SessionStore"),
                .product(name: "Projections", package: "SessionStore"),
                .product(name: "Audio", package: "SessionStore"),
                .product(name: "Replay", package: "SessionStore"),
                .product(name: "Compliance", package: "SessionStore"),
            ]
        ),
        // Peer 1: GRDB over Debian's SQLite, each record sealed by the application as EventLog seals it.
        .executableTarget(
            name: "grdb-bench",
            dependencies: ["BenchSupport", "BenchSealing", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // Peer 2: SQLCipher (page-level encryption) through its C API. GRDB 7 cannot be built against
        // Debian's SQLCipher: it is SQLite 3.15.2 and GRDB needs 3.20 (sqlite3_prepare_v3).
        .executableTarget(name: "sqlcipher-bench", dependencies: ["BenchSupport", "CSQLCipher"]),
        // Issue 13's client choice: the same sealed records through libpq and postgres-nio.
        .executableTarget(
            name: "pg-bench",
            dependencies: [
                "BenchSupport", "BenchSealing", "CBenchLibPQ",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "BenchSupport"),
        .target(name: "BenchSealing", dependencies: ["CSealing"]),
        // EventLog's record sealing in C: the C reference (reference.c) and the GRDB peer share it.
        .target(
            name: "CSealing",
            linkerSettings: [.linkedLibrary("sodium"), .linkedLibrary("zstd"), .linkedLibrary("crypto")]
        ),
        .systemLibrary(name: "CSQLCipher", pkgConfig: "sqlcipher", providers: [.apt(["libsqlcipher-dev"])]),
        .systemLibrary(name: "CBenchLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
    ]
)
