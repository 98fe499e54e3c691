import Foundation

/// Where a store's bytes live: an LMDB environment (a directory), a PostgreSQL database, or this
/// process's memory. Everything above it (sealing, keys, group commit, the Merkle tree) is the same for all.
enum StoreEnvironment: Sendable {
    case lmdb(LMDBEnvironment)
    case postgres(PostgresStorage)
    case memory(MemoryEnvironment)

    /// Runs `body` in a read-only snapshot transaction.
    func read<R>(_ body: (StoreTransaction) throws -> R) throws -> R {
        switch self {
        case .lmdb(let environment): try environment.read { try body(.lmdb($0)) }
        case .postgres(let storage): try storage.read { try body(.postgres($0)) }
        case .memory(let environment): try environment.storage.read { try body(.memory($0)) }
        }
    }

    /// Runs `body` in a write transaction, after every other writer's, and commits it. On LMDB a
    /// `rerunnable` body (one that derives everything it writes itself) runs again from scratch when
    /// the map must grow; any other is refused then (``LMDBEnvironment/write(rerunnable:_:)``).
    ///
    /// `reads` are read ahead as ``StoreTransaction/prefetch(_:)`` does (on PostgreSQL, with BEGIN: no
    /// round trip of their own).
    func write<R>(readingAhead reads: KeyReads = [], rerunnable: Bool = true, _ body: (StoreTransaction) throws -> R) throws -> R {
        switch self {
        case .lmdb(let environment): try environment.write(rerunnable: rerunnable) { try body(.lmdb($0)) }
        case .postgres(let storage): try storage.write(readingAhead: reads) { try body(.postgres($0)) }
        case .memory(let environment): try environment.storage.write { try body(.memory($0)) }
        }
    }

    /// Makes every commit durable, when the store was opened without `durable`.
    func sync() throws {
        switch self {
        case .lmdb(let environment): try environment.sync()
        case .postgres(let storage): try storage.sync()
        case .memory: break
        }
    }

    /// How many events the writer lets the stream index lag the log (the tail) before it folds them in.
    /// On LMDB a fold costs a page per stream touched, whatever the number of runs, so a long tail
    /// spreads one fold over many commits. On PostgreSQL it costs a row per run (one per append when
    /// streams interleave, each about 8 µs in the upsert), so a long tail saves nothing and makes one
    /// commit in many slow: with 2,048, every 32nd commit of 64 interleaved appenders took 16–32 ms.
    var maximumIndexTail: UInt64 {
        switch self {
        case .lmdb, .memory: 2048
        case .postgres: 256
        }
    }

    /// Makes room for `bytes` more before a long transaction (LMDB's map); PostgreSQL needs none.
    func reserve(_ bytes: Int) throws {
        if case .lmdb(let environment) = self { try environment.reserve(bytes) }
    }

    /// Lets go of mapped pages already read (LMDB's map); PostgreSQL maps none.
    func releaseMappedPages() {
        if case .lmdb(let environment) = self { environment.releaseMappedPages() }
    }

    /// Whether the store has the database (LMDB) or table (PostgreSQL) `name`.
    func hasDatabase(_ name: String) -> Bool {
        switch self {
        case .lmdb(let environment): environment.hasDatabase(name)
        case .postgres(let storage): storage.hasTable(name)
        case .memory: StoreLayout.all.contains(name)
        }
    }

    /// Whether the store is served read-only: a PostgreSQL hot standby (in recovery), or an LMDB store
    /// this user may only read.
    func isReadOnlyReplica() throws -> Bool {
        switch self {
        case .lmdb(let environment): environment.isReadOnly
        case .postgres(let storage): try storage.isInRecovery()
        case .memory: false
        }
    }

    /// Whether a failure is the backend's own (to be reported as ``EventLogError/storage(_:)``).
    static func isStorageError(_ error: any Error) -> Bool {
        error is LMDBError || error is PostgresError
    }
}
