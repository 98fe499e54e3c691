import EventLog
import EventLogPostgres
import Foundation

/// The backend the engine's behavioural suites run on: LMDB; PostgreSQL when
/// SESSIONSTORE_TEST_POSTGRES_URL names a server (tools/test runs those suites a second time so, each
/// store in a fresh database of it); or this process's memory when SESSIONSTORE_TEST_BACKEND is
/// `memory` (a third time). Tests of LMDB's files alone are enabled only for LMDB.
public enum TestBackend {
    public static let postgresServerURL = ProcessInfo.processInfo.environment["SESSIONSTORE_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    /// Stores are `memory:` stores of the test process.
    public static let isMemory = ProcessInfo.processInfo.environment["SESSIONSTORE_TEST_BACKEND"] == "memory"
    public static var isLMDB: Bool { postgresServerURL == nil && !isMemory }
    /// Whether another process can open the tests' stores (not a memory store).
    public static var isSharedBetweenProcesses: Bool { !isMemory }
    /// The data directory of that server (SESSIONSTORE_TEST_POSTGRES_DATA), for tests of the bytes in its files.
    public static let postgresDataDirectory = ProcessInfo.processInfo.environment["SESSIONSTORE_TEST_POSTGRES_DATA"].flatMap { $0.isEmpty ? nil : $0 }
    /// Whether ``TemporaryStore/storedFileBytes()`` can read the files the store's bytes are in.
    public static var canReadStoreFiles: Bool { isLMDB || isMemory || postgresDataDirectory != nil }
    /// How long a test's compaction may wait: on a PostgreSQL server other tests share, it waits for their
    /// transactions that began before it (docs/FORMAT.md §11), which a busy machine can make long.
    public static let compactionWait: Duration = .seconds(120)
}

extension EventLogOptions {
    /// The defaults, with every backend the tests open (PostgreSQL besides the built-in LMDB and memory).
    public static var testing: EventLogOptions { EventLogOptions().withPostgreSQL() }
}

/// A fresh directory holding a key file and a store path (or, on PostgreSQL, a fresh database's URL),
/// removed afterwards: `withTemporaryStore { store in … }`.
public struct TemporaryStore {
    public let root: URL
    public let storePath: String
    public var keyPath: String { root.appendingPathComponent("master.key").path }
    public var key: KeySource { .keyFile(keyPath) }

    public func create(_ options: EventLogOptions = EventLogOptions()) throws -> EventLog {
        try EventLog.create(at: storePath, key: key, options: options.withPostgreSQL())
    }

    public func open(_ options: EventLogOptions = EventLogOptions()) throws -> EventLog {
        try EventLog.open(at: storePath, key: key, options: options.withPostgreSQL())
    }

    public var dataFile: String { storePath + "/data.mdb" }

    /// Everything the store keeps, by name: every file of an LMDB store's directory, or every table of a
    /// PostgreSQL store as the server's binary COPY gives its rows (the bytes any client of it can see).
    public func storedContents() throws -> [(name: String, bytes: Data)] {
        if TestBackend.isMemory { return MemoryStores.contents(of: storePath) }
        guard !TestBackend.isLMDB else {
            return try FileManager.default.subpathsOfDirectory(atPath: storePath).map { file in
                (file, try Data(contentsOf: URL(fileURLWithPath: storePath + "/" + file)))
            }
        }
        let tables = try psql("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
        return try String(decoding: tables, as: UTF8.self).split(separator: "\n").map { table in
            (String(table), try psql("COPY \(table) TO STDOUT (FORMAT binary)"))
        }
    }

    /// The bytes of the files the store's data is in, as a thief of the disk would read them: LMDB's
    /// `data.mdb`; on PostgreSQL, after a CHECKPOINT (so that what the server holds in memory is on disk),
    /// every file of a user relation in the store's database, current or left behind by a rewrite (tables,
    /// TOAST, indexes, free space and visibility maps; file nodes from 16384 up, the first a user relation
    /// gets, so the system catalogs are left out). Not the server's WAL, which docs/FORMAT.md §11 says
    /// keeps older pages until it is recycled.
    public func storedFileBytes() throws -> [UInt8] {
        guard !TestBackend.isLMDB else { return try [UInt8](Data(contentsOf: URL(fileURLWithPath: dataFile))) }
        if TestBackend.isMemory { return MemoryStores.contents(of: storePath).flatMap { [UInt8]($0.bytes) } }
        guard let data = TestBackend.postgresDataDirectory else {
            throw PostgresServer.ServerFailure(description: "SESSIONSTORE_TEST_POSTGRES_DATA is not set")
        }
        _ = try psql("CHECKPOINT")
        let oid = String(decoding: try psql("SELECT oid FROM pg_database WHERE datname = current_database()"), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let directory = "\(data)/base/\(oid)"
        var bytes: [UInt8] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        where Int(file.prefix { $0.isNumber }).map({ $0 >= 16384 }) == true {
            bytes += try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(file)")))
        }
        return bytes
    }

    private func psql(_ command: String) throws -> Data {
        let outcome = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["psql", storePath, "-v", "ON_ERROR_STOP=1", "-qAtc", command])
        guard outcome.status == 0 else { throw PostgresServer.ServerFailure(description: "psql \(command): \(outcome.stderr)") }
        return outcome.stdout
    }
}

public func withTemporaryStore<R>(_ body: (TemporaryStore) async throws -> R) async throws -> R {
    let root = Scratch.url("eventlog-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    let storePath = TestBackend.isMemory ? "memory:\(UUID().uuidString)"
        : try TestBackend.postgresServerURL.map(PostgresServer.freshDatabase(on:)) ?? root.appendingPathComponent("store").path
    defer { if TestBackend.isMemory { MemoryStores.remove(storePath) } }
    let store = TemporaryStore(root: root, storePath: storePath)
    try MasterKeyFile.create(at: store.keyPath)
    return try await body(store)
}

public func event(_ text: String, type: String = "note") -> ProposedEvent {
    ProposedEvent(type: type, data: Array(text.utf8))
}

extension RecordedEvent {
    public var text: String { String(decoding: data, as: UTF8.self) }
}
