import Foundation

/// Where a store's bytes live, opened: a backend's ``StorageEnvironment`` and the backend itself.
/// Everything above it (sealing, keys, group commit, the Merkle tree) is the same for all backends.
struct StoreEnvironment: Sendable {
    let storage: any StorageEnvironment
    let backend: any StorageBackend

    /// Runs `body` in a read-only snapshot transaction.
    func read<R>(_ body: (StoreTransaction) throws -> R) throws -> R {
        try storage.withSnapshot(body)
    }

    /// Runs `body` in a write transaction, after every other writer's, and commits it
    /// (``StorageEnvironment/withWriteTransaction(readingAhead:rerunnable:_:)``).
    func write<R>(readingAhead reads: KeyReads = [], rerunnable: Bool = true, _ body: (StoreTransaction) throws -> R) throws -> R {
        try storage.withWriteTransaction(readingAhead: reads, rerunnable: rerunnable, body)
    }

    func sync() throws { try storage.sync() }

    var maximumIndexTail: UInt64 { storage.maximumIndexTail }

    var tailDirectory: TailDirectory? { storage.tailDirectory }

    func reserve(_ bytes: Int) throws { try storage.reserve(bytes) }

    func releaseMappedPages() { storage.releaseMappedPages() }

    func hasDatabase(_ name: String) -> Bool { storage.hasDatabase(name) }

    func isReadOnlyReplica() throws -> Bool { try storage.isReadOnlyReplica() }

    func sizes() throws -> StorageSizes { try storage.sizes() }

    func commitListener(advancing signal: CommitSignal) throws -> (any CommitListener)? {
        try storage.commitListener(advancing: signal)
    }

    func compactInPlace() throws -> (before: UInt64, after: UInt64) { try storage.compactInPlace() }

    /// Whether a failure is a backend's own (to be reported as ``EventLogError/storage(_:)``).
    static func isStorageError(_ error: any Error) -> Bool {
        error is any StorageFailure
    }
}
