import Foundation
import Synchronization

/// A store kept in this process's memory, named by a `memory:NAME` location: the third backend, for
/// tests of the layers above the engine and for anything that needs a store that is gone when the
/// process ends. It keeps what the other backends keep (ordered tables, snapshot reads, one writer
/// at a time, all-or-nothing commits, the shared and exclusive opens compaction needs) in ordinary
/// memory: nothing survives the process, and nothing is synced anywhere.
final class MemoryStorage: @unchecked Sendable {
    // @unchecked: `committed` is guarded by `state`; `shared` and `exclusive` too. Writers are serialised by `writer`.
    private var committed: [String: MemoryTable] = [:]
    private var shared = 0
    private var exclusive = false
    private let state = NSCondition()
    private let writer = NSLock()
    let name: String
    /// The writers' view of the unindexed tail, lent to readers (``TailDirectory``).
    let tailDirectory = TailDirectory()

    private init(name: String) {
        self.name = name
    }

    private static let stores = Mutex<[String: MemoryStorage]>([:])

    /// The store named `name`; with `creating`, made when there is none.
    static func named(_ name: String, creating: Bool) throws -> MemoryStorage {
        try stores.withLock { stores in
            if let store = stores[name] { return store }
            guard creating else {
                throw EventLogError(.storeMissing, "there is no store in this process's memory named \(name)", path: "memory:\(name)")
            }
            let store = MemoryStorage(name: name)
            stores[name] = store
            return store
        }
    }

    /// Forgets the store named `name`: its memory goes once nothing uses it.
    static func remove(_ name: String) {
        _ = stores.withLock { $0.removeValue(forKey: name) }
    }

    /// The committed tables of the store named `name`, for tests of what a store keeps.
    static func tables(of name: String) -> [String: MemoryTable] {
        stores.withLock { $0[name] }.map { store in store.state.withLock { store.committed } } ?? [:]
    }

    /// Runs `body` on the latest committed snapshot.
    func read<R>(_ body: (MemoryTransaction) throws -> R) throws -> R {
        try body(MemoryTransaction(tables: state.withLock { committed }, writable: false, tailDirectory: tailDirectory))
    }

    /// Runs `body` after every other writer's and commits what it wrote, all of it or (when it throws)
    /// none; readers see the commit whole or not at all.
    func write<R>(_ body: (MemoryTransaction) throws -> R) throws -> R {
        try writer.withLock {
            let transaction = MemoryTransaction(tables: state.withLock { committed }, writable: true, tailDirectory: tailDirectory)
            let result = try body(transaction)
            let written = transaction.tables
            state.withLock { committed = written }
            return result
        }
    }

    /// Bytes of every key and value.
    var byteCount: Int { state.withLock { committed.values.reduce(0) { $0 + $1.byteCount } } }

    /// Holds the store shared, waiting while an exclusive hold lasts.
    func holdShared() {
        state.lock()
        defer { state.unlock() }
        while exclusive { state.wait() }
        shared += 1
    }

    /// Holds the store alone, waiting up to `timeout` for every other hold to go.
    func holdExclusive(waitingUpTo timeout: Duration) throws {
        let deadline = Date().addingTimeInterval(Double(timeout.components.seconds) + Double(timeout.components.attoseconds) * 1e-18)
        state.lock()
        defer { state.unlock() }
        while shared > 0 || exclusive {
            guard state.wait(until: deadline) || !(shared > 0 || exclusive) else {
                throw EventLogError(.storeBusy, "the store memory:\(name) is open elsewhere in this process; close it and try again",
                                    path: "memory:\(name)")
            }
        }
        exclusive = true
    }

    func release(exclusive releasingExclusive: Bool) {
        state.withLock {
            if releasingExclusive { exclusive = false } else { shared -= 1 }
            state.broadcast()
        }
    }
}

/// One open of a ``MemoryStorage``: holds it shared or exclusively for as long as it lives, as an
/// LMDB environment holds its directory's lock.
final class MemoryEnvironment: Sendable {
    let storage: MemoryStorage
    private let isExclusive: Bool

    init(_ storage: MemoryStorage, exclusiveWaitingUpTo timeout: Duration? = nil) throws {
        if let timeout { try storage.holdExclusive(waitingUpTo: timeout) } else { storage.holdShared() }
        self.storage = storage
        self.isExclusive = timeout != nil
    }

    deinit {
        storage.release(exclusive: isExclusive)
    }
}
