import Foundation

/// The embedded default: a store is a directory holding one LMDB environment (docs/FORMAT.md §1).
/// Serves every location that is not a URL (`scheme://`) or another backend's.
struct LMDBBackend: StorageBackend {
    func serves(_ location: String) -> Bool { !StoreLocation.isURL(location) }

    var isDirectory: Bool { true }

    func open(_ path: String, _ mode: OpenMode, options: EventLogOptions) throws -> any StorageEnvironment {
        var readOnly = false
        var lock: DirectoryLock?
        switch mode {
        case .existing:
            try StoreLayout.requireDataFile(in: path, readOnly: true)
            readOnly = !StoreLayout.dataFileIsWritable(in: path)
        case .upgrading:
            try StoreLayout.requireDataFile(in: path)
        case .exclusive(let timeout):
            try StoreLayout.requireDataFile(in: path)
            lock = try EventLog.exclusiveLock(on: path, waitingUpTo: timeout)
        case .creating:
            try StoreOpening.prepareDirectoryForStore(path)
            return try LMDBEnvironment(path: path, databaseNames: StoreLayout.all, mapHeadroom: options.mapHeadroom,
                                       durable: options.durable, create: true)
        }
        do {
            return try LMDBEnvironment(path: path, databaseNames: StoreLayout.all, mapHeadroom: options.mapHeadroom,
                                       durable: options.durable, create: mode.createsTables, lock: lock, readOnly: readOnly)
        } catch {
            throw Self.openingFailure(error, at: path)
        }
    }

    /// A directory must not exist or be empty: the store is built in a hidden sibling directory and
    /// renamed into place when complete, so that a creation that fails or is killed halfway never
    /// leaves a half-made store there.
    func create<R>(_ directory: String, options: EventLogOptions,
                   _ initialise: (any StorageTransaction) throws -> R) throws -> (any StorageEnvironment, R) {
        try StoreOpening.checkNewDirectory(directory)
        let staging = try StoreOpening.makeStagingDirectory(for: directory)
        do {
            var durably = options
            durably.durable = true
            let result = try open(staging, .creating, options: durably)  // closed before the rename
                .withWriteTransaction(readingAhead: [], rerunnable: true, initialise)
            try StoreOpening.moveIntoPlace(staging, directory)
            return (try open(directory, .existing, options: options), result)
        } catch {
            try? FileManager.default.removeItem(atPath: staging)
            throw error
        }
    }

    /// Walks the data file's pages read-only, trusting none of them.
    func structureProblems(at directory: String) throws -> [String] {
        try StoreLayout.requireDataFile(in: directory, readOnly: true)
        do {
            return try LMDBEnvironment.structureProblems(path: directory)
        } catch {
            throw Self.openingFailure(error, at: directory)
        }
    }

    /// The same directory, symbolic links resolved.
    func same(_ a: String, _ b: String) -> Bool {
        URL(fileURLWithPath: a).standardizedFileURL.resolvingSymlinksInPath() == URL(fileURLWithPath: b).standardizedFileURL.resolvingSymlinksInPath()
    }

    /// What an LMDB environment that would not open at `path` says: a file that is not LMDB's or is
    /// damaged is an integrity failure, anything else leaves the store unusable.
    static func openingFailure(_ error: any Error, at path: String) -> EventLogError {
        switch error {
        case let error as EventLogError:
            error
        case let error as LMDBError where error.isNotAnLMDBFile:
            EventLogError(.integrity, "the store at \(path) cannot be opened: its \(StoreLayout.dataFileName) is not an LMDB "
                          + "file (another program's file, or a damaged store): \(error)", path: path, underlying: error)
        case let error as LMDBError where error.isCorruption:
            EventLogError(.integrity, "the store at \(path) is damaged and cannot be opened: \(error)", path: path, underlying: error)
        default:
            EventLogError(.storeUnusable, "cannot open the store at \(path): \(error)", path: path, underlying: error)
        }
    }
}

extension LMDBEnvironment: StorageEnvironment {
    func withSnapshot<R>(_ body: (any StorageTransaction) throws -> R) throws -> R {
        try read(body)
    }

    func withWriteTransaction<R>(readingAhead reads: KeyReads, rerunnable: Bool, _ body: (any StorageTransaction) throws -> R) throws -> R {
        try write(rerunnable: rerunnable, body)
    }

    func isReadOnlyReplica() throws -> Bool { isReadOnly }

    func sizes() throws -> StorageSizes {
        let info = info()
        let fileBytes = [StoreLayout.dataFileName, StoreLayout.lockFileName].reduce(UInt64(0)) { total, name in
            let path = (path as NSString).appendingPathComponent(name)
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.uint64Value ?? 0
            return total + size
        }
        return StorageSizes(bytes: fileBytes, mapSize: UInt64(info.mapSize), mapUsed: UInt64(info.pagesInUse * info.pageSize))
    }

    /// Writes a compacted copy and renames it over the data file.
    func compactInPlace() throws -> (before: UInt64, after: UInt64) {
        try replaceWithCompactedCopy()
    }
}

extension LMDBTransaction: StorageTransaction {
    var tailDirectory: TailDirectory? { environment.tailDirectory }

    /// Checks every page this snapshot could reach (the open transaction keeps them from reuse meanwhile).
    func structureProblems() -> [String] {
        PageStructure.problems(ofFileAt: (environment.path as NSString).appendingPathComponent(StoreLayout.dataFileName),
                               transactionID: id)
    }
}

extension LMDBCursor: StorageCursor {}

extension LMDBError: StorageFailure {
    var engineError: EventLogError {
        if isCorruption {
            return EventLogError(.integrity, "the store's data file is damaged: \(self)", underlying: self)
        }
        if isWriteFailure {
            return EventLogError(.storage, "cannot write the store file (is the disk full, or a quota or file size limit reached?); "
                                 + "nothing of this write was stored: \(self)", underlying: self)
        }
        return EventLogError(.storage, "storage failure: \(self)", underlying: self)
    }
}
