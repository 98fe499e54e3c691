import Foundation
import Synchronization

/// A kind of storage, as a location names it: what turns a location into a ``StorageEnvironment``.
/// The engine carries LMDB (a directory: the embedded default) and memory (`memory:NAME`); other
/// backends live in modules of their own and are handed to the engine in ``EventLogOptions/backends``,
/// so that a program that does not use them does not link their libraries (PostgreSQL: `EventLogPostgres`).
///
/// A new backend implements this, ``StorageEnvironment``, ``StorageTransaction`` and
/// ``StorageCursor``, and passes the conformance suite (Tests/EventLogTests/StorageBackendTests.swift).
package protocol StorageBackend: Sendable {
    /// Whether `location` is this backend's: a URL scheme or a prefix it recognises.
    func serves(_ location: String) -> Bool

    /// Opens the store at `location` as `mode` says, with clear errors (``EventLogError``) for a
    /// missing, busy or damaged store. `options` gives durability and LMDB's map headroom.
    func open(_ location: String, _ mode: OpenMode, options: EventLogOptions) throws -> any StorageEnvironment

    /// Makes a new store at `location` and runs `initialise` in its first transaction, durably, refusing
    /// a location that holds a store already. By default: opens it ``OpenMode/creating``, checks under
    /// the writer lock that the meta table is empty, and syncs.
    func create<R>(_ location: String, options: EventLogOptions,
                   _ initialise: (any StorageTransaction) throws -> R) throws -> (any StorageEnvironment, R)

    /// Damage in the structure of the storage at `location`, found from its bytes alone with no key.
    /// By default none (a server keeps its own pages).
    func structureProblems(at location: String) throws -> [String]

    /// Whether `a` and `b`, both this backend's, name the same store. By default, when their redacted
    /// forms are equal.
    func same(_ a: String, _ b: String) -> Bool

    /// Whether the store is a directory of this machine's files (a key file must then not sit in it).
    var isDirectory: Bool { get }
}

extension StorageBackend {
    package func create<R>(_ location: String, options: EventLogOptions,
                           _ initialise: (any StorageTransaction) throws -> R) throws -> (any StorageEnvironment, R) {
        let environment = try open(location, .creating, options: options)
        let result = try environment.withWriteTransaction(readingAhead: [], rerunnable: true) { txn in
            if try txn.count(StoreLayout.meta) > 0 {
                let shown = StoreLocation.redacted(location)
                throw EventLogError(.alreadyExists, "\(shown) holds a store (or an unfinished copy of one) already; refusing to create another there",
                                    path: shown)
            }
            return try initialise(txn)
        }
        try environment.sync()  // a store, unlike an append, is not given up to a crash
        return (environment, result)
    }

    package func structureProblems(at location: String) throws -> [String] { [] }

    package func same(_ a: String, _ b: String) -> Bool {
        StoreLocation.redacted(a) == StoreLocation.redacted(b)
    }

    package var isDirectory: Bool { false }
}

/// A backend's own failure, which says what it means to the engine (``EventLogError/storage(_:)``): damage as
/// ``EventLogError/Code/integrity``, a lost server as ``EventLogError/Code/unavailable``, …
package protocol StorageFailure: Error {
    var engineError: EventLogError { get }
}

/// The backends a location can name: those an open was handed (``EventLogOptions/backends``), then memory,
/// then LMDB (a directory: anything that is not a URL).
package enum StorageBackends {
    /// The backend of `location` among `handed` and the built-in ones, or an error naming a location no
    /// backend here serves (a URL of a backend this program was built or started without).
    package static func backend(for location: String, among handed: [any StorageBackend]) throws -> any StorageBackend {
        if let backend = (handed + [MemoryBackend(), LMDBBackend()]).first(where: { $0.serves(location) }) { return backend }
        let shown = StoreLocation.redacted(location)
        throw EventLogError(.storeUnusable, "no storage backend of this program opens \(shown): a directory, memory:NAME, or a URL of a "
                            + "backend it is given (postgresql:// needs the EventLogPostgres module: EventLogOptions().withPostgreSQL())",
                            path: shown)
    }
}
