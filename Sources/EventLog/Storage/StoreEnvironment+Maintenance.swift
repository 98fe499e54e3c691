import Foundation

/// What a store's storage takes (``StoreStatistics``).
struct StorageSizes {
    /// Bytes the store takes where it lives: LMDB's files, or PostgreSQL's tables on the server.
    var bytes: UInt64
    /// LMDB's map size and the bytes of it in use; 0 where there is no map.
    var mapSize: UInt64 = 0
    var mapUsed: UInt64 = 0
}

/// Other processes' commits being announced to a log (``StoreEnvironment/commitListener(advancing:)``).
protocol CommitListener: Sendable {
    /// Stops announcing, for good.
    func stop()
}

extension PostgresCommitListener: CommitListener {}

extension StoreEnvironment {
    /// What the store takes where it lives.
    func sizes() throws -> StorageSizes {
        switch self {
        case .lmdb(let environment):
            let info = environment.info()
            let fileBytes = [StoreLayout.dataFileName, StoreLayout.lockFileName].reduce(UInt64(0)) { total, name in
                let path = (environment.path as NSString).appendingPathComponent(name)
                let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.uint64Value ?? 0
                return total + size
            }
            return StorageSizes(bytes: fileBytes, mapSize: UInt64(info.mapSize), mapUsed: UInt64(info.pagesInUse * info.pageSize))
        case .postgres(let storage):
            return StorageSizes(bytes: try storage.bytesOnServer())
        case .memory(let environment):
            return StorageSizes(bytes: UInt64(environment.storage.byteCount))
        }
    }

    /// Starts announcing other processes' (and machines') commits by advancing `signal`: PostgreSQL
    /// through LISTEN/NOTIFY. Nil where the backend cannot announce them (LMDB): subscriptions then look
    /// again from time to time.
    func commitListener(advancing signal: CommitSignal) throws -> (any CommitListener)? {
        guard case .postgres(let storage) = self else { return nil }
        return try storage.commitListener(advancing: signal)
    }

    /// Rewrites the store so that nothing deleted survives in its storage, and returns the bytes it took
    /// before and after: LMDB writes a compacted copy and renames it over the data file, PostgreSQL
    /// runs `VACUUM FULL`. The environment must have been opened ``OpenMode/exclusive(_:)``.
    func compactInPlace() throws -> (before: UInt64, after: UInt64) {
        switch self {
        case .lmdb(let environment):
            return try environment.replaceWithCompactedCopy()
        case .postgres(let storage):
            let before = try storage.bytesOnServer()
            try storage.vacuumFull()
            return (before, try storage.bytesOnServer())
        case .memory(let environment):
            let bytes = UInt64(environment.storage.byteCount)  // nothing deleted is kept
            return (bytes, bytes)
        }
    }
}

extension StoreEnvironment {
    /// Damage in the structure of the store's storage at `location`, found from its bytes alone with no
    /// key (LMDB's data file, every page LMDB would trust); none for PostgreSQL, whose server keeps its
    /// own pages.
    static func structureProblems(at location: String) throws -> [String] {
        guard case .directory(let directory) = StoreLocation(location) else { return [] }
        try StoreLayout.requireDataFile(in: directory, readOnly: true)  // the walk opens the file read-only
        do {
            return try LMDBEnvironment.structureProblems(path: directory)
        } catch {
            throw openingFailure(error, at: directory)
        }
    }
}

extension StoreTransaction {
    /// Damage in the storage's own structures as of this transaction's snapshot, found from their bytes
    /// before anything walks them: LMDB trusts its pages, and a damaged page header can crash it (the
    /// open transaction keeps this snapshot's pages from reuse meanwhile). None on PostgreSQL, whose
    /// server checks its own pages.
    func structureProblems() -> [String] {
        guard case .lmdb(let txn) = self else { return [] }
        return PageStructure.problems(ofFileAt: (txn.environment.path as NSString).appendingPathComponent(StoreLayout.dataFileName),
                                      transactionID: txn.id)
    }
}
