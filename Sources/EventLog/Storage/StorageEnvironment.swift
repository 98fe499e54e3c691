import Foundation

/// One open of a store's storage: what the engine asks of a backend beyond its transactions
/// (``StorageTransaction``). Implemented by LMDB's environment, a PostgreSQL connection pool and a
/// memory store's open.
package protocol StorageEnvironment: Sendable {
    /// Runs `body` in a read-only snapshot transaction.
    func withSnapshot<R>(_ body: (any StorageTransaction) throws -> R) throws -> R

    /// Runs `body` in a write transaction, after every other writer's, and commits it. A `rerunnable`
    /// body (one that derives everything it writes itself) may be run again from scratch when the
    /// storage must grow first (LMDB's map); any other is refused then. `reads` may be read ahead as
    /// ``StorageTransaction/prefetch(_:)`` does, with the transaction's start.
    func withWriteTransaction<R>(readingAhead reads: KeyReads, rerunnable: Bool,
                                 _ body: (any StorageTransaction) throws -> R) throws -> R

    /// Makes every commit durable, when the store was opened without `durable`.
    func sync() throws

    /// How many events the writer lets the stream index lag the log (the tail) before it folds them in: a
    /// fold is one commit's extra work, so the longer the tail, the longer the appends of that commit wait.
    var maximumIndexTail: UInt64 { get }

    /// What the writer keeps its ``TailDirectory`` in, which this environment's transactions lend to
    /// readers; nil for a backend whose readers scan the tail.
    var tailDirectory: TailDirectory? { get }

    /// Makes room for `bytes` more before a long transaction (LMDB's map). By default nothing.
    func reserve(_ bytes: Int) throws

    /// Lets go of mapped pages already read (LMDB's map). By default nothing.
    func releaseMappedPages()

    /// Whether the store has the table `name` (a store of an older format lacks some).
    func hasDatabase(_ name: String) -> Bool

    /// Whether the store is served read-only: a PostgreSQL hot standby, or an LMDB store this user may
    /// only read.
    func isReadOnlyReplica() throws -> Bool

    /// What the store takes where it lives.
    func sizes() throws -> StorageSizes

    /// Starts announcing other processes' (and machines') commits by advancing `signal`. Nil (the
    /// default) where the backend cannot: subscriptions then look again from time to time.
    func commitListener(advancing signal: CommitSignal) throws -> (any CommitListener)?

    /// Rewrites the store so that nothing deleted survives in its storage, and returns the bytes it took
    /// before and after. The environment was opened ``OpenMode/exclusive(_:)``.
    func compactInPlace() throws -> (before: UInt64, after: UInt64)
}

extension StorageEnvironment {
    /// A fold writes a page of `event-ids` for nearly every event it indexes: 512 keeps the commit that carries it
    /// short enough for the slowest appends (docs/history/performance.md, "Appends through the live WebSocket").
    package var maximumIndexTail: UInt64 { 512 }
    package var tailDirectory: TailDirectory? { nil }
    package func reserve(_ bytes: Int) throws {}
    package func releaseMappedPages() {}
    package func isReadOnlyReplica() throws -> Bool { false }
    package func commitListener(advancing signal: CommitSignal) throws -> (any CommitListener)? { nil }
}

/// What a store's storage takes (``StoreStatistics``).
package struct StorageSizes {
    /// Bytes the store takes where it lives: LMDB's files, or PostgreSQL's tables on the server.
    package var bytes: UInt64
    /// LMDB's map size and the bytes of it in use; 0 where there is no map.
    package var mapSize: UInt64 = 0
    package var mapUsed: UInt64 = 0

    package init(bytes: UInt64, mapSize: UInt64 = 0, mapUsed: UInt64 = 0) {
        self.bytes = bytes
        self.mapSize = mapSize
        self.mapUsed = mapUsed
    }
}

/// Other processes' commits being announced to a log (``StorageEnvironment/commitListener(advancing:)``).
package protocol CommitListener: Sendable {
    /// Stops announcing, for good.
    func stop()
}
