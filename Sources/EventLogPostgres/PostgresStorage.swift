import EventLog
import Foundation

/// A store's tables in PostgreSQL (docs/FORMAT.md "PostgreSQL"): one per LMDB database, the same keys and
/// values. `events` is `(position bigint primary key, record bytea)`: a position key is eight big-endian
/// bytes, which is exactly bigint's binary form, and positions stay below 2⁶³, so its order is the
/// order of the key bytes. Every other table is `(key bytea primary key, value bytea)`; bytea compares
/// as unsigned bytes, as LMDB does.
final class PostgresStorage: @unchecked Sendable {
    // @unchecked: `idle`, `lockConnection` and `lockConnectionSuspect` are guarded by `lock`; a connection
    // is used by one thread at a time, between taking it from `idle` and putting it back. Not a `Mutex`: a
    // connection is not Sendable, and handing one in and out of a mutex's region is what it refuses.
    /// A database's table and the statements the transactions run on it, made once.
    struct Table {
        let name: String
        let key: String
        let value: String
        let keyType: String
        let select: String
        /// Upserts the rows of two binary arrays, keys and values (``PostgresTransaction/flush(_:)``).
        let batchUpsert: String
        let delete: String

        init(database: String) {
            let events = database == StoreLayout.events
            name = events ? "events" : database.replacingOccurrences(of: "-", with: "_")
            key = events ? "position" : "key"
            value = events ? "record" : "value"
            keyType = events ? "bigint" : "bytea"
            select = "SELECT \(value) FROM \(name) WHERE \(key) = $1"
            batchUpsert = "INSERT INTO \(name) (\(key), \(value)) SELECT * FROM unnest($1::\(keyType)[], $2::bytea[]) ON CONFLICT (\(key)) DO UPDATE SET \(value) = EXCLUDED.\(value)"
            delete = "DELETE FROM \(name) WHERE \(key) = $1 RETURNING 1"
        }
    }

    /// The key of the transaction-scoped advisory lock every write transaction takes first: one writer
    /// at a time across processes and machines, as LMDB's writer lock within one machine.
    static let writerLock: Int64 = 0x5E55_10D5_7013

    /// Idle connections kept for reuse; more are opened when more threads read at once.
    private static let maximumIdle = 4

    /// The connection URL as given (it may carry a password: never print it; see ``StoreLocation``).
    private let url: String
    private let lock = NSLock()
    private var idle: [PGConnection] = []
    /// The store's tables that exist in the database (those of `StoreLayout.all`), as of opening.
    private let existingTables: Set<String>

    /// The key of the session-level advisory lock that plays the LMDB directory lock's part: every open
    /// store holds it shared on a connection of its own; key rotation and compaction take it exclusively.
    static let openLock: Int64 = 0x5E55_10D5_0BE7

    /// How an opening holds ``openLock``.
    enum OpenLock {
        /// Shared, waiting while a rotation or compaction holds it.
        case shared
        /// Exclusive, waiting up to the duration for every other open to close.
        case exclusive(Duration)
    }

    /// The connection that holds ``openLock`` for as long as the storage lives (guarded by `lock`).
    private var lockConnection: PGConnection
    /// Set when a connection was lost: the lock connection may have gone with its server (a failover)
    /// and is checked before the next transaction.
    private var lockConnectionSuspect = false
    /// How this storage holds ``openLock``, to take it again the same way.
    private let openLockMode: OpenLock

    /// Whether COMMIT waits for the server to have the transaction on disk (``EventLogOptions/durable``).
    /// When not, write transactions commit with `synchronous_commit = off`: the server may lose the last
    /// ones in a crash but stays consistent, as LMDB without sync does; ``sync()`` makes them durable.
    let durable: Bool

    /// Connects to `url`, creating the store's tables first with `createTables`.
    init(url: String, createTables: Bool, openLock: OpenLock = .shared, durable: Bool = true) throws {
        self.url = url
        self.durable = durable
        lockConnection = try PGConnection(url: url)
        openLockMode = openLock
        try Self.take(openLock, on: lockConnection)
        let connection = try PGConnection(url: url)
        if createTables { try Self.createSchema(on: connection) }
        let names = try connection.query("SELECT tablename::text FROM pg_tables WHERE schemaname = current_schema()")
        let present = Set((0..<names.rowCount).compactMap { row in names.bytes(row: row, column: 0).map { String(decoding: $0, as: UTF8.self) } })
        existingTables = Set(StoreLayout.all.filter { present.contains(Self.tables[$0]!.name) })
        idle = [connection]
    }

    private static func take(_ lock: OpenLock, on connection: PGConnection) throws {
        switch lock {
        case .shared:
            try connection.execute("SELECT pg_advisory_lock_shared(\(openLock))")
        case .exclusive(let timeout):
            let clock = ContinuousClock()
            let start = clock.now
            while try connection.query("SELECT pg_try_advisory_lock(\(openLock))").bytes(row: 0, column: 0)?.first != 1 {
                guard clock.now - start < timeout else { throw OpenLockBusy() }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
    }

    /// Another process holds the store open, so ``openLock`` could not be had exclusively.
    struct OpenLockBusy: Error {}

    private static let tables = Dictionary(uniqueKeysWithValues: StoreLayout.all.map { ($0, Table(database: $0)) })

    static func table(_ database: String) throws -> Table {
        guard let table = tables[database] else { throw PostgresError(description: "no table for the database \(database)") }
        return table
    }

    /// Whether the table of database `name` existed when the store was opened.
    func hasTable(_ name: String) -> Bool { existingTables.contains(name) }

    /// Creates the tables that are missing.
    private static func createSchema(on connection: PGConnection) throws {
        var statements = ["BEGIN", "SELECT pg_advisory_xact_lock(\(writerLock))"]
        for database in StoreLayout.all {
            let table = try table(database)
            statements.append("CREATE TABLE IF NOT EXISTS \(table.name) (\(table.key) \(table.keyType) PRIMARY KEY, \(table.value) bytea NOT NULL)")
            // Records are sealed: compressing them again would only cost time.
            statements.append("ALTER TABLE \(table.name) ALTER COLUMN \(table.value) SET STORAGE EXTERNAL")
        }
        statements.append("COMMIT")
        try connection.execute(statements.joined(separator: ";\n"))
    }

    /// The bytes the store's tables take on the server, indexes and TOAST included.
    func bytesOnServer() throws -> UInt64 {
        let sizes = existingTables.map { "coalesce(pg_total_relation_size(to_regclass('\(Self.tables[$0]!.name)')), 0)" }
        return try withConnection { connection in
            UInt64(try connection.query("SELECT (\(sizes.joined(separator: " + ")))::bigint").int64(row: 0, column: 0) ?? 0)
        }
    }

    /// Rewrites the store's tables without their dead row versions (`VACUUM FULL`), so that nothing
    /// deleted or replaced (a destroyed key, an old wrapping) survives in them; the server's write-ahead
    /// log and its backups keep older pages until they are recycled.
    ///
    /// `VACUUM FULL` copies every deleted row that some snapshot might still see, so it first waits for
    /// every transaction and snapshot that could (``waitForOlderTransactions(on:)``).
    func vacuumFull() throws {
        let names = StoreLayout.all.filter(existingTables.contains).map { Self.tables[$0]!.name }
        try withConnection { connection in
            try waitForOlderTransactions(on: connection)
            try connection.execute("VACUUM (FULL) \(names.joined(separator: ", "))")
        }
    }

    /// Waits, up to the exclusive open's timeout, until every row deleted before now is removable: until
    /// no transaction that began before now is running in any database of the server (every new snapshot,
    /// VACUUM's own included, would count it as running, and so every row deleted after it as visible),
    /// and no session of this database, or of none yet, holds a snapshot taken before now (an
    /// autovacuum's ANALYZE, another client's long transaction).
    private func waitForOlderTransactions(on connection: PGConnection) throws {
        let now = try connection.query("SELECT pg_current_xact_id()::xid::text").bytes(row: 0, column: 0).map { String(decoding: $0, as: UTF8.self) } ?? "0"
        let older = """
            SELECT (SELECT count(*) FROM pg_stat_activity
                    WHERE pid <> pg_backend_pid()
                      AND (age(backend_xid) >= age('\(now)'::xid)
                           OR (datid IS NULL OR datname = current_database()) AND age(backend_xmin) >= age('\(now)'::xid)))
                 + (SELECT count(*) FROM pg_prepared_xacts WHERE age(transaction) >= age('\(now)'::xid))
            """
        let timeout: Duration = if case .exclusive(let timeout) = openLockMode { timeout } else { .seconds(10) }
        let clock = ContinuousClock()
        let start = clock.now
        while try connection.query(older).int64(row: 0, column: 0) != 0 {
            guard clock.now - start < timeout else {
                throw EventLogError(.storeBusy, "a transaction on the PostgreSQL server, or a snapshot in the store's database, is older than the "
                                    + "store's last change, so compacting now would keep deleted rows; nothing was compacted: try again when it has ended")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Whether the server is a hot standby (in recovery): it serves reads and refuses every write.
    func isInRecovery() throws -> Bool {
        try withConnection { try $0.query("SELECT pg_is_in_recovery()").bytes(row: 0, column: 0)?.first == 1 }
    }

    /// A read transaction: one snapshot of every table, as an LMDB read transaction.
    func read<R>(_ body: (PostgresTransaction) throws -> R) throws -> R {
        try withConnection { connection in
            try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            return try finish(PostgresTransaction(connection: connection), writing: false, body)
        }
    }

    /// What every write transaction reads first (the writer's counters: the meta table and the last
    /// record), sent with BEGIN so that it costs no round trip of its own.
    private static let lastRecordQuery = PostgresCursor.query(Table(database: StoreLayout.events), ascending: false)

    /// A write transaction, after every other writer's: committed when `body` returns, rolled back
    /// when it throws. COMMIT returns once the server (and a synchronous standby, where one is
    /// configured) has the transaction durably, unless the store was opened without `durable`
    /// (``durable``).
    ///
    /// Two round trips carry a typical append: BEGIN with the writer lock, the reads every writer makes
    /// first and `reads` (the keys an append looks up, read after the lock like the rest); and every held
    /// write with COMMIT.
    func write<R>(readingAhead reads: KeyReads = [], _ body: (PostgresTransaction) throws -> R) throws -> R {
        try withConnection { connection in
            let meta = try Self.table(StoreLayout.meta)
            let transaction = PostgresTransaction(connection: connection)
            let (asked, readQueries) = try transaction.queries(reading: reads)
            let begun = try connection.pipeline([PGStatement(sql: "BEGIN")]
                + (durable ? [] : [PGStatement(sql: "SET LOCAL synchronous_commit = off")])
                + [PGStatement(sql: "SELECT pg_advisory_xact_lock(\(Self.writerLock))"),
                   PGStatement(sql: "SELECT \(meta.key), \(meta.value) FROM \(meta.name)"), PGStatement(sql: Self.lastRecordQuery)]
                + readQueries)
            let answers = begun.suffix(readQueries.count + 2)
            transaction.readAhead(whole: StoreLayout.meta, from: answers[answers.startIndex])
            transaction.readAhead(answer: answers[answers.startIndex + 1], to: Self.lastRecordQuery)
            transaction.take(asked, answers: Array(answers.dropFirst(2)))
            return try finish(transaction, body)
        }
    }

    /// Makes every transaction committed so far durable, when commits do not wait for it themselves: one
    /// transaction that writes to the server's write-ahead log (a logical-decoding message, which changes
    /// no table) and commits synchronously. The log is written in order, so flushing its commit flushes
    /// every earlier one.
    func sync() throws {
        guard !durable else { return }
        _ = try withConnection { connection in
            try connection.pipeline(["BEGIN", "SELECT pg_logical_emit_message(true, 'sessionstore', 'sync')", "COMMIT"].map { PGStatement(sql: $0) })
        }
    }

    /// Runs `body`, then sends what it left held, the commit announcement and COMMIT together; rolls back
    /// when anything fails.
    private func finish<R>(_ transaction: PostgresTransaction, writing: Bool = true, _ body: (PostgresTransaction) throws -> R) throws -> R {
        let connection = transaction.connection
        do {
            let result = try body(transaction)
            var statements = try transaction.takeHeldStatements()
            if let next = transaction.appendedEnd { statements.append(Self.commitAnnouncement(next: next)) }
            do {
                try connection.pipeline(statements + [PGStatement(sql: "COMMIT")])
            } catch let error as PostgresError where error.isConnectionLoss && writing {
                throw PostgresError(description: "the connection broke during COMMIT, so the transaction may or may not have been committed: \(error)",
                                    isConnectionLoss: true)
            }
            return result
        } catch {
            connection.rollback()
            throw error
        }
    }

    /// The channel (a quoted identifier) on which commits to the store in `connection`'s schema are
    /// announced: one per schema, as the tables are.
    static func commitChannel(on connection: PGConnection) throws -> String {
        let result = try connection.query("SELECT quote_ident('\(channelPrefix)' || current_schema())")
        guard let name = result.bytes(row: 0, column: 0) else { throw PostgresError(description: "the server names no current schema") }
        return String(decoding: name, as: UTF8.self)
    }

    private static let channelPrefix = "sessionstore_commits."

    /// Announces, on commit, that the log now ends before position `next` (``PostgresCommitListener``).
    private static func commitAnnouncement(next: Int64) -> PGStatement {
        PGStatement(sql: "SELECT pg_notify('\(channelPrefix)' || current_schema(), $1)", parameters: [Array(String(next).utf8)])
    }

    /// A listener that advances `signal` whenever any process commits appended events to this store.
    func listenForCommits(advancing signal: CommitSignal) throws -> PostgresCommitListener {
        try PostgresCommitListener(url: url, signal: signal)
    }

    /// Lends an idle connection, or a new one, to `body`; takes it back unless it broke (a lost
    /// server: the next transaction connects again, to whichever host the URL names is the primary now).
    func withConnection<R>(_ body: (PGConnection) throws -> R) throws -> R {
        try renewOpenLockIfLost()
        let connection = try lock.withLock { idle.popLast() } ?? PGConnection(url: url)
        defer {
            if connection.isReusable {
                lock.withLock { if idle.count < Self.maximumIdle { idle.append(connection) } }
            } else {
                lock.withLock { lockConnectionSuspect = true }
            }
        }
        return try body(connection)
    }

    /// After a lost connection: when the lock connection is gone too (its server died, and a multi-host
    /// URL now leads to the promoted standby), takes ``openLock`` again, as it was taken, on the server
    /// that is the primary now.
    private func renewOpenLockIfLost() throws {
        try lock.withLock {
            guard lockConnectionSuspect else { return }
            if (try? lockConnection.execute("SELECT 1")) != nil {
                lockConnectionSuspect = false
                return
            }
            let renewed = try PGConnection(url: url)
            try Self.take(openLockMode, on: renewed)
            lockConnection = renewed
            lockConnectionSuspect = false
        }
    }
}
