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
    /// A new store (or an unfinished copy): every table made. The directory must exist.
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
            return try LMDBEnvironment(path: path, databaseNames: StoreLayout.all, mapHeadroom: options.mapHeadroom,
                                       durable: options.durable, create: true)
        }
        let create = if case .upgrading = mode { true } else { false }
        do {
            return try LMDBEnvironment(path: path, databaseNames: StoreLayout.all, mapHeadroom: options.mapHeadroom,
                                       durable: options.durable, create: create, lock: lock, readOnly: readOnly)
        } catch let error as LMDBError where error.isNotAnLMDBFile {
            throw EventLogError(.integrity, "the store at \(path) cannot be opened: its \(StoreLayout.dataFileName) is not an LMDB "
                                + "file (another program's file, or a damaged store): \(error)", path: path, underlying: error)
        } catch let error as LMDBError where error.isCorruption {
            throw EventLogError(.integrity, "the store at \(path) is damaged and cannot be opened: \(error)", path: path, underlying: error)
        } catch let error as EventLogError {
            throw error
        } catch {
            throw EventLogError(.storeUnusable, "cannot open the store at \(path): \(error)", path: path, underlying: error)
        }
    }
}
