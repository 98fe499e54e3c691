import EventLog
import Foundation

/// The backend the engine's behavioural suites run on: LMDB, or PostgreSQL when
/// SESSIONSTORE_TEST_POSTGRES_URL names a server (tools/test runs those suites a second time so, each
/// store in a fresh database of it). Tests of LMDB's files alone are enabled only for LMDB.
public enum TestBackend {
    public static let postgresServerURL = ProcessInfo.processInfo.environment["SESSIONSTORE_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    public static var isLMDB: Bool { postgresServerURL == nil }
}

/// A fresh directory holding a key file and a store path (or, on PostgreSQL, a fresh database's URL),
/// removed afterwards: `withTemporaryStore { store in … }`.
public struct TemporaryStore {
    public let root: URL
    public let storePath: String
    public var keyPath: String { root.appendingPathComponent("master.key").path }
    public var key: KeySource { .keyFile(keyPath) }

    public func create(_ options: EventLogOptions = EventLogOptions()) throws -> EventLog {
        try EventLog.create(at: storePath, key: key, options: options)
    }

    public func open(_ options: EventLogOptions = EventLogOptions()) throws -> EventLog {
        try EventLog.open(at: storePath, key: key, options: options)
    }

    public var dataFile: String { storePath + "/data.mdb" }

    /// Everything the store keeps, by name: every file of an LMDB store's directory, or every table of a
    /// PostgreSQL store as the server's binary COPY gives its rows (the bytes any client of it can see).
    public func storedContents() throws -> [(name: String, bytes: Data)] {
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
    let storePath = try TestBackend.postgresServerURL.map(PostgresServer.freshDatabase(on:))
        ?? root.appendingPathComponent("store").path
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
