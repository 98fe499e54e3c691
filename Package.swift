// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "SessionStore",
    platforms: [.macOS(.v15), .iOS(.v18)],  // Synchronization's Mutex and Atomic
    // What an application imports: the engine and its PostgreSQL backend, the vocabulary, ingest, the views, exports,
    // compliance, audio (a file's, and a chunk's) and replay (docs/LIBRARY.md). Every other module is the CLI's or the server's, `package` to
    // this package: an app adds SessionStore's products and finds no internal module among them.
    products: [
        .library(name: "Failures", targets: ["Failures"]),
        .library(name: "EventLog", targets: ["EventLog"]),
        .library(name: "EventLogPostgres", targets: ["EventLogPostgres"]),
        .library(name: "Output", targets: ["Output"]),
        .library(name: "SessionModel", targets: ["SessionModel"]),
        .library(name: "SessionLog", targets: ["SessionLog"]),
        .library(name: "Migrations", targets: ["Migrations"]),
        .library(name: "Ingest", targets: ["Ingest"]),
        .library(name: "Projections", targets: ["Projections"]),
        .library(name: "Exports", targets: ["Exports"]),
        .library(name: "Compliance", targets: ["Compliance"]),
        .library(name: "Audio", targets: ["Audio"]),
        .library(name: "SessionAudio", targets: ["SessionAudio"]),
        .library(name: "Replay", targets: ["Replay"]),
        // For apps that record on the device (docs/CLIENT.md): no system C library, so an iOS app adds it with SwiftPM alone.
        .library(name: "SessionStoreClient", targets: ["SessionStoreClient"]),
        // For an app's own tests (docs/CLIENT.md): the store's tolerant transcript matcher; Foundation only.
        .library(name: "SessionStoreTesting", targets: ["SessionStoreTesting"]),
        .executable(name: "sessionstore", targets: ["sessionstore"]),
    ],
    traits: [
        // `sessionstore serve` and `witness serve`: Hummingbird and SwiftNIO, about four fifths of a first
        // build. On by default; `--disable-default-traits` builds the store's CLI without them (tools/demo).
        .trait(name: "Server", description: "`sessionstore serve` and `witness serve` (Hummingbird, SwiftNIO)."),
        // `serve --tls-certificate`: swift-nio-ssl and its copy of BoringSSL (several hundred C files) are
        // built only with `--traits TLS`; the default build serves plain HTTP (docs/PERFORMANCE.md, "Build").
        .trait(name: "TLS", description: "HTTPS in `sessionstore serve` (swift-nio-ssl, BoringSSL).", enabledTraits: ["Server"]),
        .default(enabledTraits: ["Server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        // `replay --drive`: the system under test as a child process with async pipes and a teardown.
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // `sessionstore serve` and `witness serve`. Without its default trait `ConfigurationSupport`, which would
        // build swift-configuration for a reader of settings the server does not use (docs/PERFORMANCE.md, "Build").
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: ["FullFoundation"]),
        // `sessionstore serve`: /metrics in Prometheus' text format, fed through swift-metrics.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // `serve`'s live session stream (/v1/sessions/{id}/live).
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // SessionStoreClient's outbox sealed with ChaCha20-Poly1305: CryptoKit on Apple platforms, BoringSSL (built from
        // source, no system library) elsewhere. The server's dependencies already build it.
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        // `serve`'s web console (/ui): server-rendered pages from Mustache templates.
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        // `swift package generate-documentation --target EventLog` (a plugin: nothing of it is linked).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(name: "CLMDB", pkgConfig: "lmdb", providers: [.apt(["liblmdb-dev"]), .brew(["lmdb"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])]),
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"]), .brew(["zstd"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"]), .brew(["libpq"])]),
        .systemLibrary(name: "CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"]), .brew(["libsndfile"])]),

        // The one shape of every module's errors (CodedError, ErrorCode), and why a file failed: no dependencies.
        .target(name: "Failures"),
        // Bytes as lowercase hexadecimal: ids, hashes and key names as people and formats read them.
        .target(name: "HexCoding"),
        // RFC 3339 times, as ingest reads them and every output writes them.
        .target(name: "TimeCoding"),
        // The engine, written against its storage protocols, with LMDB (the embedded default) and memory.
        .target(name: "EventLog", dependencies: ["Failures", "HexCoding", "CLMDB", "CSodium", "CZstd", "CCrypto"]),
        // PostgreSQL as a store's storage: only what registers it links libpq.
        .target(name: "EventLogPostgres", dependencies: ["EventLog", "CLibPQ"]),
        // Streaming writers of rows as JSON, NDJSON, CSV and aligned tables; RFC 3339 times.
        .target(name: "Output", dependencies: ["Failures", "HexCoding", "TimeCoding"]),
        // Reading, writing and losslessly coding 16-bit PCM (libsndfile), and a recording's script (its transcript truth).
        .target(name: "Audio", dependencies: ["Failures", "CSndFile"]),
        // The dictation vocabulary and its codec over plain bytes: no C library, no storage. The payload
        // messages are generated from docs/session-events.proto (Generated/, tools/protobuf/generate).
        .target(name: "SessionModel", dependencies: ["Failures", "HexCoding", "TimeCoding", .product(name: "SwiftProtobuf", package: "swift-protobuf")]),
        // A stored event, and a segment's words, as rows of the output layer: the vocabulary hands its payloads' fields
        // over without knowing any output format (PayloadFieldWriter).
        .target(name: "EventRows", dependencies: ["Output", "SessionModel"]),
        // Upcasters of old event payloads (the store's own format upgrades live in EventLog).
        .target(name: "Migrations", dependencies: ["SessionModel"], path: "Migrations"),
        // Session events on the log: the codec's log events, which stream holds what, the dictionary.
        .target(name: "SessionLog", dependencies: ["Failures", "SessionModel", "Migrations", "EventLog"]),
        // A recording chunk's audio both ways (PCM, FLAC): for the writer that stores it and the readers that play it.
        .target(name: "SessionAudio", dependencies: ["SessionModel", "EventLog", "Audio"]),
        // NDJSON ingest: parsing, validation, FLAC coding of chunks, appending all or nothing.
        .target(name: "Ingest", dependencies: ["Failures", "EventRows", "SessionAudio", "SessionLog", "SessionModel", "Migrations", "EventLog", "Audio", "Output",
                                               "TimeCoding"]),
        .target(name: "Projections", dependencies: ["SessionLog", "SessionModel", "Migrations", "EventLog"]),
        // Transcript exports: JSON, CSV, WebVTT, SRT, streaming from the persisted views.
        .target(
            name: "Exports",
            dependencies: ["Failures", "EventRows", "Output", "Projections", "SessionAudio", "SessionLog", "SessionModel", "Migrations", "EventLog", "Audio",
                           "SessionStoreTesting",
                           .product(name: "ZIPFoundation", package: "ZIPFoundation")]
        ),
        // Consent audit, violation checks, retention, erasure by key destruction.
        .target(name: "Compliance", dependencies: ["Failures", "HexCoding", "Output", "Projections", "SessionLog", "SessionModel", "Migrations", "EventLog",
                                                   "TimeCoding"]),
        // Fixture sessions from audio and a timed script, the replay engine, TranscriptMatcher.
        .target(
            name: "Replay",
            dependencies: ["Audio", "EventRows", "Exports", "Failures", "Output", "Ingest", "SessionAudio", "SessionLog", "SessionModel", "Projections", "EventLog",
                           "Migrations", "SessionStoreTesting", "TimeCoding",
                           .product(name: "Subprocess", package: "swift-subprocess"),
                           // FilePath: Apple platforms take it from their System framework.
                           .product(name: "SystemPackage", package: "swift-system", condition: .when(platforms: [.linux]))]
        ),
        // One session as a self-contained HTML page: waveform, timeline, transcript, consent, violations.
        .target(
            name: "Reports",
            dependencies: ["Audio", "Compliance", "EventLog", "Exports", "Output", "Projections", "Replay", "SessionLog", "SessionModel", "TimeCoding"],
            // The page's stylesheets and script, compiled into the binary as bytes.
            resources: [.embedInCode("Resources")]
        ),
        // The client that collects witnesses' cosignatures over HTTP (C2SP tlog-witness); the witness's own
        // server is in SessionServer.
        .target(name: "WitnessHTTP", dependencies: ["Compliance", "EventLog"]),
        // The rows of the views the CLI prints and the server answers with, one rendering for both (docs/OUTPUT.md); the
        // rows of a comparison or a compliance check are their modules' own (Replay/Rows, Compliance/Rows).
        .target(name: "OutputRows", dependencies: ["EventRows", "Output", "Projections", "SessionModel"]),
        // `serve --jwks`: JWS signatures checked with the system's libcrypto, which the log already links
        // (jwt-kit would bring swift-crypto's BoringSSL, swift-certificates and SwiftASN1: docs/SERVER.md).
        .target(name: "WebTokens", dependencies: ["CCrypto"]),
        // `sessionstore serve`: the store over HTTP (Hummingbird 2), with tokens, limits and metrics; and the
        // witness's endpoint (`witness serve`).
        .target(
            name: "SessionServer",
            dependencies: ["Audio", "Compliance", "EventLog", "Exports", "Failures", "Ingest", "SessionAudio", "Output", "OutputRows", "Projections", "Replay",
                           "Reports", "SessionLog", "SessionModel", "SessionStoreTesting", "Migrations", "TimeCoding", "WebTokens", "WitnessHTTP",
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "HummingbirdCore", package: "hummingbird"),
                           .product(name: "HummingbirdTLS", package: "hummingbird", condition: .when(traits: ["TLS"])),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                           .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                           .product(name: "HTTPTypes", package: "swift-http-types"),
                           .product(name: "CoreMetrics", package: "swift-metrics"),
                           .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOWebSocket", package: "swift-nio"),
                           .product(name: "NIOHTTP1", package: "swift-nio"),
                           .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["TLS"])),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "Prometheus", package: "swift-prometheus"),
                           .product(name: "Mustache", package: "swift-mustache")],
            // The console's templates, stylesheet and script, compiled into the binary as bytes.
            resources: [.embedInCode("Console/Resources")]
        ),

        // Recording on the device (docs/CLIENT.md): a durable, encrypted outbox, and sync over the live WebSocket
        // (URLSession's on Apple platforms, swift-websocket's NIO client where URLSession has none) with POST /v1/events
        // as the fallback. Foundation, swift-crypto, swift-metrics and swift-log: no system C library.
        .target(
            name: "SessionStoreClient",
            dependencies: ["Failures",
                           .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "CoreMetrics", package: "swift-metrics"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "HTTPTypes", package: "swift-http-types"),
                           .product(name: "HummingbirdWSClient", package: "hummingbird-websocket", condition: .when(platforms: [.linux]))]
        ),

        // What an app's tests share with the store (issue 66): the tolerant transcript matcher `compare` and
        // `replay --expect` judge with. Foundation only, so an iOS test target adds it with SwiftPM alone.
        .target(name: "SessionStoreTesting"),

        // `sessionstore push`: a store's sessions sent to a server through the client's outbox and sync.
        .target(name: "SessionPush", dependencies: ["EventLog", "EventRows", "Failures", "Ingest", "Migrations", "SessionLog", "SessionModel", "SessionStoreClient"]),

        .executableTarget(
            name: "sessionstore",
            dependencies: [
                "Failures",
                "EventLog",
                "EventLogPostgres",
                "SessionAudio",
                "SessionModel",
                "SessionLog",
                "Ingest",
                "Migrations",
                "Projections",
                "Audio",
                "Replay",
                "Output",
                "Exports",
                "Compliance",
                "Reports",
                "WitnessHTTP",
                "OutputRows",
                "EventRows",
                "TimeCoding",
                "SessionStoreTesting",
                .target(name: "SessionServer", condition: .when(traits: ["Server"])),
                .target(name: "SessionPush", condition: .when(traits: ["Server"])),
                .target(name: "SessionStoreClient", condition: .when(traits: ["Server"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // One app recording through SessionStoreClient, for the network checker (tools/netem/check.py).
        .executableTarget(name: "ClientRecorder", dependencies: ["SessionStoreClient"]),
        // Appends to a client's outbox in a loop and reports each append that returned; the outbox's crash test SIGKILLs it.
        .executableTarget(name: "ClientCrashWriter", dependencies: ["SessionStoreClient"]),
        // Appends in a loop and reports each acknowledged append; the crash-safety tests SIGKILL it.
        .executableTarget(name: "EventLogCrashWriter", dependencies: ["EventLog", "EventLogPostgres"]),
        // The parsers of outside bytes as libFuzzer targets (tools/fuzz); built plainly, a runner of
        // the corpora in Fixtures/fuzz, which the tests use.
        .executableTarget(name: "SessionStoreFuzz", dependencies: ["EventLog", "Ingest", "Migrations", "SessionModel", "Audio"]),

        // Helpers shared by the test targets: temporary stores, built executables.
        .target(
            name: "TestSupport",
            dependencies: ["EventLog", "EventLogPostgres", "CLibPQ", .product(name: "PropertyBased", package: "swift-property-based")],
            path: "Tests/TestSupport"
        ),
        .testTarget(name: "EventLogTests", dependencies: ["Failures", "EventLog", "EventLogPostgres", "EventLogCrashWriter", "TestSupport"]),
        .testTarget(
            name: "SessionModelTests",
            dependencies: ["SessionModel", "SessionLog", "Migrations", "Ingest", "SessionAudio", "Audio", "EventLog", "Output", "TestSupport",
                           .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(
            name: "IngestTests",
            dependencies: ["Ingest", "SessionAudio", "SessionLog", "SessionModel", "Migrations", "EventLog", "Audio", "Output", "TestSupport",
                           .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(name: "OutputTests", dependencies: ["Output", "TimeCoding", "TestSupport"]),
        .testTarget(name: "AudioTests", dependencies: ["Audio", "TestSupport"]),
        .testTarget(name: "ReplayTests", dependencies: ["Replay", "SessionStoreTesting", "Exports", "Ingest", "SessionAudio", "SessionLog", "Audio", "SessionModel", "Projections", "EventLog", "TestSupport"]),
        .testTarget(name: "ProjectionsTests", dependencies: ["Projections", "Output", "Ingest", "SessionLog", "SessionModel", "Migrations", "TestSupport"]),
        .testTarget(
            name: "MigrationsTests",
            dependencies: ["Migrations", "SessionModel", "SessionLog", "Ingest", "EventLog", "Projections", "TestSupport"]
        ),
        .testTarget(
            name: "ComplianceTests",
            dependencies: ["Compliance", "Exports", "Projections", "Ingest", "SessionLog", "SessionModel", "EventLog", "Output", "TimeCoding", "TestSupport"]
        ),
        .testTarget(name: "ReportsTests", dependencies: ["Reports"]),
        .testTarget(name: "SessionStoreClientTests", dependencies: ["SessionStoreClient", "ClientCrashWriter", "ClientRecorder", "SessionServer", "Compliance", "EventLog", "SessionLog", "SessionModel", "TestSupport"]),
        .testTarget(name: "WebTokensTests", dependencies: ["WebTokens"]),
        // The example app test target of docs/APP-TESTING.md: what an app's UI-test target holds, compiled and run here.
        .testTarget(name: "DictationAppExampleTests", dependencies: ["SessionStoreTesting"], path: "Examples/DictationAppTests"),
        .testTarget(
            name: "SessionStoreCLITests",
            dependencies: ["sessionstore", "EventLog", "SessionModel", "SessionLog", "SessionServer", "Audio", "Projections", "TimeCoding", "SessionStoreTesting", "TestSupport"]
        ),
        .testTarget(
            name: "SessionServerTests",
            dependencies: ["SessionServer", "Audio", "Compliance", "EventLog", "Exports", "Failures", "Ingest", "Projections", "Replay", "SessionModel", "SessionLog", "TestSupport",
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "NIOEmbedded", package: "swift-nio")]
        ),
    ]
)
