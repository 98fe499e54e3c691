import Foundation

/// How a store's environment is opened (``StoreEnvironment/open(_:_:options:)``).
enum OpenMode {
    /// An existing store, shared with other opens (waiting while one holds it alone); read-only when
    /// this user may read but not write its data file.
    case existing
    /// An existing store, creating the tables a newer format adds (migration).
    case upgrading
    /// An existing store, alone: waits up to the duration for every other open to close, else
    /// ``EventLogError/Code/storeBusy`` (key rotation, compaction).
    case exclusive(Duration)
    /// A new store (or an unfinished copy): every table made. A directory is made when missing, and
    /// refused when it holds anything but a store.
    case creating
}

extension StoreEnvironment {
    /// Opens the environment at `location` (a directory, or a `postgresql://` URL) as `mode` says: the
    /// one place where a location becomes a backend, with clear errors for a missing, busy or damaged
    /// store. `options` gives durability and LMDB's map headroom.
    static func open(_ location: String, _ mode: OpenMode, options: EventLogOptions = EventLogOptions()) throws -> StoreEnvironment {
        switch StoreLocation(location) {
        case .postgres(let url):
            let createTables = switch mode {
            case .upgrading, .creating: true
            case .existing, .exclusive: false
            }
            let lock: PostgresStorage.OpenLock = if case .exclusive(let timeout) = mode { .exclusive(timeout) } else { .shared }
            return .postgres(try PostgresStorage.connect(url: url, createTables: createTables, openLock: lock, durable: options.durable))
        case .directory(let path):
            return .lmdb(try openLMDB(path, mode, options: options))
        case .memory(let name):
            let storage = try MemoryStorage.named(name, creating: { if case .creating = mode { true } else { false } }())
            let timeout: Duration? = if case .exclusive(let timeout) = mode { timeout } else { nil }
            return .memory(try MemoryEnvironment(storage, exclusiveWaitingUpTo: timeout))
        }
    }

    /// Makes a new store at `location` and runs `initialise` in its first transaction, durably. A
    /// directory must not exist or be empty: the store is built in a hidden sibling directory and
    /// renamed into place when complete, so that a creation that fails or is killed halfway never
    /// leaves a half-made store there. A PostgreSQL database gets the store's tables and must not hold
    /// a store already (checked under the writer lock).
    static func create<R>(_ location: String, options: EventLogOptions,
                          _ initialise: (StoreTransaction) throws -> R) throws -> (StoreEnvironment, R) {
        switch StoreLocation(location) {
        case .postgres, .memory:
            let environment = try open(location, .creating, options: options)
            let result = try environment.write { txn in
                if try txn.count(StoreLayout.meta) > 0 {
                    let shown = StoreLocation.redacted(location)
                    throw EventLogError(.alreadyExists, "\(shown) holds a store (or an unfinished copy of one) already; refusing to create another there",
                                        path: shown)
                }
                return try initialise(txn)
            }
            try environment.sync()  // a store, unlike an append, is not given up to a crash
            return (environment, result)
        case .directory(let directory):
            try StoreOpening.checkNewDirectory(directory)
            let staging = try StoreOpening.makeStagingDirectory(for: directory)
            do {
                var durably = options
                durably.durable = true
                let result = try open(staging, .creating, options: durably).write(initialise)  // closed before the rename
                try StoreOpening.moveIntoPlace(staging, directory)
                return (try open(directory, .existing, options: options), result)
            } catch {
                try? FileManager.default.removeItem(atPath: staging)
                throw error
            }
        }
    }

    private static func openLMDB(_ path: String, _ mode: OpenMode, options: EventLogOptions) throws -> LMDBEnvironment {
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
        let create = if case .upgrading = mode { true } else { false }
        do {
            return try LMDBEnvironment(path: path, databaseNames: StoreLayout.all, mapHeadroom: options.mapHeadroom,
                                       durable: options.durable, create: create, lock: lock, readOnly: readOnly)
        } catch {
            throw openingFailure(error, at: path)
        }
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
