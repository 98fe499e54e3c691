import Foundation

/// A store's tables in PostgreSQL (docs/FORMAT.md "PostgreSQL"): one per LMDB database, the same keys and
/// values. `events` is `(position bigint primary key, record bytea)`: a position key is eight big-endian
/// bytes, which is exactly bigint's binary form, and positions stay below 2⁶³, so its order is the
/// order of the key bytes. Every other table is `(key bytea primary key, value bytea)`; bytea compares
/// as unsigned bytes, as LMDB does.
final class PostgresStorage: @unchecked Sendable {
    // @unchecked: `idle` is guarded by `lock`; a connection is used by one thread at a time, between
    // taking it from `idle` and putting it back.
    /// A database's table and the statements the transactions run on it, made once.
    struct Table {
        let name: String
        let key: String
        let value: String
        let keyType: String
        let select: String
        let upsert: String
        let delete: String

        init(database: String) {
            let events = database == StoreLayout.events
            name = events ? "events" : database.replacingOccurrences(of: "-", with: "_")
            key = events ? "position" : "key"
            value = events ? "record" : "value"
            keyType = events ? "bigint" : "bytea"
            select = "SELECT \(value) FROM \(name) WHERE \(key) = $1"
            upsert = "INSERT INTO \(name) (\(key), \(value)) VALUES ($1, $2) ON CONFLICT (\(key)) DO UPDATE SET \(value) = EXCLUDED.\(value)"
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

    /// The connection that holds ``openLock`` for as long as the storage lives.
    private let lockConnection: PGConnection

    /// Connects to `url`, creating the store's tables first with `createTables`.
    init(url: String, createTables: Bool, openLock: OpenLock = .shared) throws {
        self.url = url
        lockConnection = try PGConnection(url: url)
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
    func vacuumFull() throws {
        let names = StoreLayout.all.filter(existingTables.contains).map { Self.tables[$0]!.name }
        try withConnection { try $0.execute("VACUUM (FULL) \(names.joined(separator: ", "))") }
    }

    /// A read transaction: one snapshot of every table, as an LMDB read transaction.
    func read<R>(_ body: (PostgresTransaction) throws -> R) throws -> R {
        try transaction("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", body)
    }

    /// A write transaction, after every other writer's: committed when `body` returns, rolled back
    /// when it throws. COMMIT returns once the server (and a synchronous standby, where one is
    /// configured) has the transaction durably: `synchronous_commit` is never off on these connections.
    func write<R>(_ body: (PostgresTransaction) throws -> R) throws -> R {
        try transaction("BEGIN; SELECT pg_advisory_xact_lock(\(Self.writerLock))", body)
    }

    private func transaction<R>(_ begin: String, _ body: (PostgresTransaction) throws -> R) throws -> R {
        try withConnection { connection in
            try connection.execute(begin)
            let transaction = PostgresTransaction(connection: connection)
            let result: R
            do {
                result = try body(transaction)
                try transaction.flushAppends()
                if let next = transaction.appendedEnd { try Self.notifyCommit(on: connection, next: next) }
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
            do {
                try connection.execute("COMMIT")
            } catch let error as PostgresError where error.isConnectionLoss {
                throw PostgresError(description: "the connection broke during COMMIT, so the transaction may or may not have been committed: \(error)",
                                    isConnectionLoss: true)
            }
            return result
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
    private static func notifyCommit(on connection: PGConnection, next: Int64) throws {
        try connection.query("SELECT pg_notify('\(channelPrefix)' || current_schema(), $1)", [Array(String(next).utf8)])
    }

    /// A listener that advances `signal` whenever any process commits appended events to this store.
    func commitListener(advancing signal: CommitSignal) throws -> PostgresCommitListener {
        try PostgresCommitListener(url: url, signal: signal)
    }

    /// Lends an idle connection, or a new one, to `body`; takes it back unless it broke (a lost
    /// server: the next transaction connects again, to whichever host the URL names is the primary now).
    func withConnection<R>(_ body: (PGConnection) throws -> R) throws -> R {
        let connection = try lock.withLock { idle.popLast() } ?? PGConnection(url: url)
        defer {
            if connection.isReusable {
                lock.withLock { if idle.count < Self.maximumIdle { idle.append(connection) } }
            }
        }
        return try body(connection)
    }
}

/// A transaction of ``PostgresStorage``. Appended records (`put(_:_:_:append: true)` on `events`) are
/// held and sent together, in one statement per 10,000, before anything else touches `events` and before
/// COMMIT; every other write goes to the server at once. So reads and cursors in the same transaction see
/// every write, and a batch's records cost one round trip per 10,000 rather than one each. Results are kept
/// until the transaction ends, so the bytes it lends stay valid as long as an LMDB transaction's.
final class PostgresTransaction: StorageTransaction {
    let connection: PGConnection
    private var results: [PGResult] = []
    /// Appended records not yet sent: positions and records.
    private var appendedPositions: [Int64] = []
    private var appendedRecords: [[UInt8]] = []
    private static let appendBatch = 10_000
    /// The position after the last record this transaction appended, if it appended any.
    private(set) var appendedEnd: Int64?
    /// Bumped by every write: a cursor's prefetched rows from before it are stale.
    private(set) var generation = 0

    init(connection: PGConnection) {
        self.connection = connection
    }

    func query(_ sql: String, _ parameters: [[UInt8]?] = []) throws -> PGResult {
        let result = try connection.query(sql, parameters)
        results.append(result)
        return result
    }

    func get(_ table: String, _ key: some ContiguousBytes) throws -> UnsafeRawBufferPointer? {
        try flushAppends(touching: table)
        let result = try query(try PostgresStorage.table(table).select, [try keyBytes(table, key)])
        return result.rowCount == 0 ? nil : result.bytes(row: 0, column: 0)
    }

    func put(_ table: String, _ key: some ContiguousBytes, _ value: some ContiguousBytes, append: Bool = false) throws {
        if append, table == StoreLayout.events {
            let position = try keyBytes(table, key).withUnsafeBytes { Int64(bigEndian: $0.loadUnaligned(as: Int64.self)) }
            generation += 1
            appendedPositions.append(position)
            appendedRecords.append(value.withUnsafeBytes { Array($0) })
            if appendedPositions.count >= Self.appendBatch { try flushAppends() }
            return
        }
        try flushAppends(touching: table)
        let upsert = try PostgresStorage.table(table).upsert
        generation += 1
        try connection.query(upsert, [try keyBytes(table, key), value.withUnsafeBytes { Array($0) }])
    }

    @discardableResult
    func delete(_ table: String, _ key: some ContiguousBytes) throws -> Bool {
        try flushAppends(touching: table)
        let delete = try PostgresStorage.table(table).delete
        generation += 1
        return try connection.query(delete, [try keyBytes(table, key)]).rowCount > 0
    }

    func count(_ table: String) throws -> Int {
        try flushAppends(touching: table)
        return Int(try connection.query("SELECT count(*) FROM \(try PostgresStorage.table(table).name)").int64(row: 0, column: 0) ?? 0)
    }

    func withCursor<R>(_ table: String, _ body: (PostgresCursor) throws -> R) throws -> R {
        try flushAppends(touching: table)
        return try body(PostgresCursor(transaction: self, table: try PostgresStorage.table(table), database: table))
    }

    /// Sends the held appended records, in one `INSERT … SELECT FROM unnest` of two binary arrays, if
    /// `table` is `events` (or always, with nil).
    func flushAppends(touching table: String? = nil) throws {
        guard !appendedPositions.isEmpty, table == nil || table == StoreLayout.events else { return }
        try connection.query("INSERT INTO events (position, record) SELECT * FROM unnest($1::bigint[], $2::bytea[])",
                             [PGArray.int8(appendedPositions), PGArray.bytea(appendedRecords)])
        appendedEnd = max(appendedEnd ?? 0, appendedPositions.max()! + 1)
        appendedPositions.removeAll(keepingCapacity: true)
        appendedRecords.removeAll(keepingCapacity: true)
    }

    /// The key as bound: `events` takes exactly eight bytes (a bigint).
    func keyBytes(_ table: String, _ key: some ContiguousBytes) throws -> [UInt8] {
        let bytes = key.withUnsafeBytes { Array($0) }
        if table == StoreLayout.events, bytes.count != 8 || bytes[0] & 0x80 != 0 {
            throw PostgresError(description: "an events key must be a position: eight big-endian bytes below 2⁶³")
        }
        return bytes
    }
}

/// A cursor of ``PostgresTransaction``: moves fetch rows ahead in the direction of travel, 16 at first and
/// up to 1,024 as a walk goes on, and fetch again after a write in the transaction.
final class PostgresCursor: StorageCursor {
    private let transaction: PostgresTransaction
    private let table: PostgresStorage.Table
    private let database: String
    private var rows: [Entry] = []
    private var index = 0
    private var ascending = true
    private var generation = 0
    private var batch = 16

    init(transaction: PostgresTransaction, table: PostgresStorage.Table, database: String) {
        self.transaction = transaction
        self.table = table
        self.database = database
    }

    private var current: Entry? { rows.indices.contains(index) ? rows[index] : nil }

    func first() throws -> Entry? { try fetch(ascending: true, after: nil, inclusive: false) }
    func last() throws -> Entry? { try fetch(ascending: false, after: nil, inclusive: false) }

    func seek(atOrAfter key: some ContiguousBytes) throws -> Entry? {
        try fetch(ascending: true, after: try transaction.keyBytes(database, key), inclusive: true)
    }

    func next() throws -> Entry? { try step(ascending: true) }
    func previous() throws -> Entry? { try step(ascending: false) }

    private func step(ascending forward: Bool) throws -> Entry? {
        guard let current else { return forward ? try first() : try last() }
        if forward == ascending, generation == transaction.generation, index + 1 < rows.count {
            index += 1
            batch = min(batch * 2, 1024)
            return rows[index]
        }
        return try fetch(ascending: forward, after: Array(current.key), inclusive: false, growing: forward == ascending)
    }

    private func fetch(ascending forward: Bool, after key: [UInt8]?, inclusive: Bool, growing: Bool = false) throws -> Entry? {
        if !growing { batch = 16 }
        try transaction.flushAppends(touching: database)
        let order = forward ? "ASC" : "DESC"
        let comparison = forward ? (inclusive ? ">=" : ">") : (inclusive ? "<=" : "<")
        let condition = key == nil ? "" : "WHERE \(table.key) \(comparison) $1"
        let result = try transaction.query("SELECT \(table.key), \(table.value) FROM \(table.name) \(condition) ORDER BY \(table.key) \(order) LIMIT \(batch)",
                                           key.map { [$0] } ?? [])
        let fetched: [Entry] = (0..<result.rowCount).compactMap { row in
            guard let key = result.bytes(row: row, column: 0), let value = result.bytes(row: row, column: 1) else { return nil }
            return (key, value)
        }
        // Stepping past either end leaves the cursor where it was, as LMDB's does.
        if fetched.isEmpty, growing || key != nil && !inclusive { return nil }
        rows = fetched
        index = 0
        ascending = forward
        generation = transaction.generation
        return current
    }
}
