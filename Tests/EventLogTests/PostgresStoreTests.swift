@testable import EventLog
@testable import EventLogPostgres
import Foundation
import TestSupport
import Testing

/// What only a PostgreSQL store has: a server to reach, credentials, a database that may hold another
/// store or none, and VACUUM in place of LMDB's compaction. (The engine's behavioural suites run on
/// PostgreSQL too: tools/test runs them a second time with SESSIONSTORE_TEST_POSTGRES_URL.)
@Suite(PostgresServer.suite) struct PostgresStoreTests {
    /// A key file in a fresh directory, and a fresh database.
    func withDatabase(_ body: (_ url: String, _ key: KeySource, _ root: URL) async throws -> Void) async throws {
        let server = try #require(PostgresServer.current)
        let root = Scratch.url("pg-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let keyPath = root.appendingPathComponent("master.key").path
        try MasterKeyFile.create(at: keyPath)
        try await body(try server.freshDatabase(), .keyFile(keyPath), root)
    }

    func rowCount(_ url: String, _ table: String) throws -> Int {
        try StoreEnvironment.open(url, .existing, options: .testing).read { try $0.count(table) }
    }

    @Test func aStoreInADatabaseIsCreatedOnceAndReopenedWithItsKeyOnly() async throws {
        try await withDatabase { url, key, root in
            let events = try await {
                let log = try EventLog.create(at: url, key: key, options: .testing)
                try await log.append([event("first"), event("second")], to: StreamID())
                return try log.readAll()
            }()
            let again = #expect(throws: EventLogError.self) { try EventLog.create(at: url, key: key, options: .testing) }
            #expect(again?.code == .alreadyExists)

            let otherKey = root.appendingPathComponent("other.key").path
            try MasterKeyFile.create(at: otherKey)
            let wrong = #expect(throws: EventLogError.self) { try EventLog.open(at: url, key: .keyFile(otherKey), options: .testing) }
            #expect(wrong?.code == .wrongKey)
            #expect(try rowCount(url, StoreLayout.events) == 2, "a refused create or open writes nothing")
            #expect(try EventLog.open(at: url, key: key, options: .testing).readAll() == events)
        }
    }

    @Test func aDatabaseWithoutAStoreAndAMissingDatabaseAreNoStore() async throws {
        try await withDatabase { url, key, _ in
            let empty = #expect(throws: EventLogError.self) { try EventLog.open(at: url, key: key, options: .testing) }
            #expect(empty?.code == .storeMissing)
            #expect(empty?.message.contains("no store") == true)
            let missingURL = String(url[..<url.lastIndex(of: "/")!]) + "/nosuchdatabase"
            let missing = #expect(throws: EventLogError.self) { try EventLog.open(at: missingURL, key: key, options: .testing) }
            #expect(missing?.code == .storeMissing)
        }
    }

    @Test func anUnreachableServerAndAnUnknownRoleAreClearFailures() async throws {
        try await withDatabase { url, key, _ in
            let closedPort = try PostgresServer.closedLoopbackPort()
            let unreachable = #expect(throws: EventLogError.self) {
                try EventLog.open(at: "postgresql://postgres@127.0.0.1:\(closedPort)/postgres?connect_timeout=5", key: key, options: .testing)
            }
            #expect(unreachable?.code == .unavailable)
            #expect(unreachable?.message.contains("cannot reach the PostgreSQL server") == true)

            let stranger = url.replacingOccurrences(of: "://postgres@", with: "://nosuchrole:hunter2@")
            let refused = #expect(throws: EventLogError.self) { try EventLog.open(at: stranger, key: key, options: .testing) }
            #expect(refused?.code == .permissionDenied)
            #expect(refused?.message.contains("hunter2") == false, "a password is never printed")
            #expect(refused?.message.contains("nosuchrole:***@") == true)
        }
    }

    @Test func aStoreOfANewerFormatIsRefusedAndLeftAsItWas() async throws {
        try await withDatabase { url, key, _ in
            try await EventLog.create(at: url, key: key, options: .testing).append([event("kept")], to: StreamID())
            try StoreEnvironment.open(url, .existing, options: .testing).write { txn in
                try txn.put(StoreLayout.meta, StoreLayout.formatKey, [UInt8](bigEndian: UInt32(99)))
            }
            let refused = #expect(throws: EventLogError.self) { try EventLog.open(at: url, key: key, options: .testing) }
            #expect(refused?.code == .unsupportedFormat)
            #expect(try rowCount(url, StoreLayout.events) == 1)
        }
    }

    @Test func compactionWaitsForEveryOpenToCloseThenRewritesTheTablesKeepingEveryEvent() async throws {
        try await withDatabase { url, key, _ in
            var log: EventLog? = try EventLog.create(at: url, key: key, options: .testing)
            let streams = (0..<50).map { _ in StreamID() }
            for stream in streams { try await log!.append((0..<20).map { event("event \($0) of a stream to erase") }, to: stream) }
            try log!.destroyKeys(of: Array(streams.prefix(40)))
            let events = try log!.readAll(skippingErased: true)
            let busy = #expect(throws: EventLogError.self) { try EventLog.compact(at: url, waitingUpTo: .milliseconds(200), options: .testing) }
            #expect(busy?.code == .storeBusy)
            try log!.close()
            log = nil
            let report = try EventLog.compact(at: url, waitingUpTo: TestBackend.compactionWait,
                options: .testing)  // the test beside it holds old transactions
            #expect(report.bytesBefore > 0 && report.bytesAfter > 0)
            let reopened = try EventLog.open(at: url, key: key, options: .testing)
            #expect(try reopened.readAll(skippingErased: true) == events)
            #expect(try reopened.verify().isIntact)
        }
    }

    /// Sessions of other clients that began before an erasure: a snapshot in the store's database (as an
    /// autovacuum's ANALYZE takes), and a transaction in another database, which every snapshot taken
    /// while it runs counts as running (VACUUM's own too). `%@` is the store's database URL.
    static let olderSessions = [
        (url: "%@", sql: "BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM pg_class; SELECT pg_sleep(600)"),
        (url: "other", sql: "BEGIN; SELECT pg_current_xact_id(); SELECT pg_sleep(600)"),
    ]

    @Test(arguments: olderSessions)
    func compactionWaitsForWhatBeganBeforeAnErasureSoThatNoDestroyedKeyIsCopiedIntoTheRewrittenTables(older: (url: String, sql: String)) async throws {
        try await withDatabase { url, key, _ in
            var log: EventLog? = try EventLog.create(at: url, key: key, options: .testing)
            let streams = (0..<10).map { _ in StreamID() }
            for stream in streams { try await log!.append([event("an event of a stream")], to: stream) }
            let sessionURL = older.url == "%@" ? url : try #require(PostgresServer.current).freshDatabase()
            let name = "older-\(UUID().uuidString.prefix(8))"
            let holder = try ChildProcess(URL(fileURLWithPath: "/usr/bin/env"), ["psql", sessionURL + "?application_name=\(name)", "-qAtc", older.sql])
            let holding = "SELECT pid FROM pg_stat_activity WHERE application_name = '\(name)' AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)"
            while try PostgresServer.sql(holding, on: url).isEmpty {
                #expect(holder.isRunning, "psql holds its snapshot")
                try await Task.sleep(for: .milliseconds(50))
            }
            let keys = try PostgresStorage.table(StoreLayout.keys).name
            let keysBefore = try #require(Int(try PostgresServer.sql("SELECT count(*) FROM \(keys)", on: url)))
            try log!.destroyKeys(of: Array(streams.prefix(5)))
            try log!.close()
            log = nil

            let busy = #expect(throws: EventLogError.self) { try EventLog.compact(at: url, waitingUpTo: .milliseconds(300), options: .testing) }
            #expect(busy?.code == .storeBusy)
            #expect(busy?.message.contains("older than the store's last change") == true)
            try PostgresServer.sql("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = '\(name)'", on: url)
            try EventLog.compact(at: url, waitingUpTo: .seconds(60), options: .testing)
            holder.kill()

            try PostgresServer.sql("CREATE EXTENSION IF NOT EXISTS pgstattuple", on: url)
            #expect(try PostgresServer.sql("SELECT dead_tuple_count FROM pgstattuple('\(keys)')", on: url) == "0",
                    "no destroyed key's row was copied into the rewritten table")
            #expect(try PostgresServer.sql("SELECT count(*) FROM \(keys)", on: url) == String(keysBefore - 5))
        }
    }

    @Test func aWriterWhoseStoreLostCommitsAndGrewBackToTheSameLengthReadsItAgain() async throws {
        let server = try #require(PostgresServer.current)
        try await withDatabase { url, key, _ in
            let writer = try EventLog.create(at: url, key: key, options: .testing)
            let mine = StreamID()
            let other = StreamID()
            try await writer.append([event("0"), event("1")], to: mine)
            try await writer.append([event("x")], to: other)
            let snapshot = try server.freshDatabase()
            try writer.copy(to: snapshot)
            try await writer.append([event("2"), event("3")], to: mine)  // the commits the store will lose

            // The store goes back to the snapshot (as after a failover to a standby that was behind) and
            // another writer brings it back to the same length and key count with other records.
            try PostgresServer.sql("DROP TABLE \(try StoreLayout.all.map { try PostgresStorage.table($0).name }.joined(separator: ", "))", on: url)
            try EventLog.open(at: snapshot, key: key, options: .testing).copy(to: url)
            try await EventLog.open(at: url, key: key, options: .testing).append([event("y"), event("z")], to: other)

            try await writer.append([event("2 again")], to: mine, expectedVersion: .exact(2))
            #expect(try writer.readStream(mine).map(\.text) == ["0", "1", "2 again"])
            let report = try writer.verify()
            #expect(report.isIntact, "\(report.problems.prefix(3))")
        }
    }

    /// Where in a write the server refuses it (a trigger on `table`), and how many events the append has.
    struct Refusal: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let table: String
        let condition: String
        let message: String
        let events: Int
    }

    @Test(arguments: [
        // Every append writes a nonce base, sent with the records and COMMIT in one pipeline: the server
        // refuses it there, after it has taken the records.
        Refusal(testDescription: "at COMMIT", table: "nonce_bases", condition: "", message: "nonce bases are read-only today", events: 1),
        // 1,000 records go to the server through a COPY while the rest are sealed; it refuses one in the
        // middle of them.
        Refusal(testDescription: "while the records stream", table: "events", condition: "WHEN (NEW.position = 700)",
                message: "position 700 is reserved", events: 1000),
    ])
    func aWriteTheServerRefusesLeavesNothingAndTheNextAppendGoesThrough(_ refusal: Refusal) async throws {
        try await withDatabase { url, key, _ in
            let log = try EventLog.create(at: url, key: key, options: .testing)
            let stream = StreamID()
            try await log.append([event("before")], to: stream)
            try PostgresServer.sql("""
                CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '\(refusal.message)'; END $$;
                CREATE TRIGGER refuse BEFORE INSERT ON \(refusal.table) FOR EACH ROW \(refusal.condition) EXECUTE FUNCTION refuse();
                """, on: url)
            let texts = (0..<refusal.events).map { "event \($0)" }
            let refused = await #expect(throws: EventLogError.self) { try await log.append(texts.map { event($0) }, to: stream) }
            #expect(refused?.message.contains(refusal.message) == true, "\(refused?.message ?? "")")
            #expect(try rowCount(url, StoreLayout.events) == 1, "nothing of the refused transaction is kept")

            try PostgresServer.sql("DROP TRIGGER refuse ON \(refusal.table)", on: url)
            try await log.append(texts.map { event($0) }, to: stream, expectedVersion: .exact(1))
            #expect(try log.readStream(stream).map(\.text) == ["before"] + texts)
            #expect(try log.verify().isIntact)
        }
    }

    @Test func aConnectionPreparesEachQueryOnceAndRunsTransactionControlAsSent() async throws {
        try await withDatabase { url, _, _ in
            let connection = try PGConnection(url: url)
            let prepared = "SELECT count(*) FROM pg_prepared_statements"
            let statement = "SELECT $1::bigint + 1"
            for value: Int64 in [1, 41] {
                let result = try connection.query(statement, [Array(withUnsafeBytes(of: value.bigEndian) { Array($0) })])
                #expect(result.int64(row: 0, column: 0) == value + 1)
            }
            let queries = try connection.query(prepared).int64(row: 0, column: 0)
            #expect(queries == 2, "the sum and the count are prepared once each")
            let answers = try connection.pipeline([PGStatement(sql: "BEGIN"), PGStatement(sql: statement, parameters: [Array(repeating: 0, count: 8)]),
                                                   PGStatement(sql: "COMMIT")])
            #expect(answers[1].int64(row: 0, column: 0) == 1)
            #expect(try connection.query(prepared).int64(row: 0, column: 0) == 2, "BEGIN and COMMIT are not prepared; the sum is reused")
        }
    }

    @Test(arguments: [
        ("postgresql://alice:s3cret@db.example:5432/sessions", "postgresql://alice:***@db.example:5432/sessions"),
        ("postgres://alice@h1:5432,h2:5433/s?password=s3cret&target_session_attrs=read-write",
         "postgres://alice@h1:5432,h2:5433/s?password=***&target_session_attrs=read-write"),
        ("postgresql://alice@db/sessions", "postgresql://alice@db/sessions"),
        ("/var/lib/sessions.store", "/var/lib/sessions.store"),
    ])
    func aLocationIsShownWithoutItsPassword(_ location: String, _ shown: String) {
        #expect(StoreLocation.redacted(location) == shown)
    }
}
