import Foundation

/// How a store's environment is opened (``StoreEnvironment/open(_:_:options:)``).
package enum OpenMode {
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

    /// Whether the store's tables are made where missing.
    package var createsTables: Bool {
        switch self {
        case .upgrading, .creating: true
        case .existing, .exclusive: false
        }
    }
}

extension StoreEnvironment {
    /// Opens the environment at `location` as `mode` says: the one place where a location becomes a
    /// backend (among ``EventLogOptions/backends`` and the built-in ones), used by every path that opens a store.
    static func open(_ location: String, _ mode: OpenMode, options: EventLogOptions) throws -> StoreEnvironment {
        let backend = try StorageBackends.backend(for: location, among: options.backends)
        return StoreEnvironment(storage: try backend.open(location, mode, options: options), backend: backend)
    }

    /// Makes a new store at `location` and runs `initialise` in its first transaction, durably
    /// (``StorageBackend/create(_:options:_:)``).
    static func create<R>(_ location: String, options: EventLogOptions,
                          _ initialise: (StoreTransaction) throws -> R) throws -> (StoreEnvironment, R) {
        let backend = try StorageBackends.backend(for: location, among: options.backends)
        let (storage, result) = try backend.create(location, options: options, initialise)
        return (StoreEnvironment(storage: storage, backend: backend), result)
    }

    /// Damage in the structure of the store's storage at `location`, found from its bytes alone with no
    /// key (``StorageBackend/structureProblems(at:)``).
    static func structureProblems(at location: String, options: EventLogOptions) throws -> [String] {
        try StorageBackends.backend(for: location, among: options.backends).structureProblems(at: location)
    }
}
