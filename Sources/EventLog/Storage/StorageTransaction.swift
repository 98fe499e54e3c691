import Foundation

/// Keys to read ahead, by table (``StorageTransaction/prefetch(_:)``).
package typealias KeyReads = [(table: String, keys: [[UInt8]])]

/// A transaction on whichever backend holds the store: the one type the engine is written against.
package typealias StoreTransaction = any StorageTransaction

/// The seam between the engine and where its bytes live: ordered key-value tables, read and written
/// in transactions. LMDB implements it with its databases, PostgreSQL (module `EventLogPostgres`) with
/// a table per LMDB database (docs/FORMAT.md "PostgreSQL"), a memory store with sorted arrays. Keys
/// order as unsigned bytes in all.
///
/// Bytes a transaction returns are valid until it ends, or in a write transaction until its next
/// update: copy or decode them before either. The requirements take raw bytes so that a call through
/// the protocol is one indirect call; the ``ContiguousBytes`` forms below are the engine's.
package protocol StorageTransaction {
    func get(_ table: String, _ key: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer?

    /// Stores `value` at `key`, replacing what was there. `append` promises that `key` sorts after every
    /// key of the table (LMDB then skips the search).
    func put(_ table: String, _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, append: Bool) throws

    /// Deletes `key`; returns whether it was there.
    @discardableResult
    func delete(_ table: String, _ key: UnsafeRawBufferPointer) throws -> Bool

    /// Deletes `key` leaving no copy of its value behind where the backend allows it (LMDB overwrites
    /// it in place first). Returns whether the key was there. By default, ``delete(_:_:)``.
    @discardableResult
    func scrubAndDelete(_ table: String, _ key: UnsafeRawBufferPointer) throws -> Bool

    /// Stores `value` at `key` as ``put(_:_:_:append:)`` does, leaving no copy of the value it replaces where the
    /// backend allows it (LMDB moves a value of another size, and the old bytes could stay in the page's free space).
    /// By default, a put: a server keeps its old row versions whatever the client does.
    func scrubAndPut(_ table: String, _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws

    /// Reads the values of `requests`' keys ahead, so that the `get`s of them that follow cost no round
    /// trip to a server. By default nothing: a backend that reads from memory needs none.
    func prefetch(_ requests: KeyReads) throws

    /// Whether ``prefetch(_:)`` does anything: a caller need not gather keys for a backend that reads from
    /// memory. By default false.
    var readsAhead: Bool { get }

    /// How many entries `table` holds.
    func count(_ table: String) throws -> Int

    func withCursor<R>(_ table: String, _ body: (any StorageCursor) throws -> R) throws -> R

    /// Damage in the storage's own structures as of this transaction's snapshot, found from their bytes
    /// before anything walks them (LMDB trusts its pages, and a damaged page header can crash it). By
    /// default none: a server checks its own pages.
    func structureProblems() -> [String]

    /// The unindexed tail by stream as this process's writer committed it (``TailDirectory``); nil for a
    /// backend without one, whose readers scan the tail.
    var tailDirectory: TailDirectory? { get }
}

extension StorageTransaction {
    package var tailDirectory: TailDirectory? { nil }
}

/// An entry a ``StorageCursor`` is on: bytes valid as a transaction's are.
package typealias StorageEntry = (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)

/// A cursor over one table of a ``StorageTransaction``, in key order.
package protocol StorageCursor {
    func first() throws -> StorageEntry?
    func last() throws -> StorageEntry?
    func next() throws -> StorageEntry?
    func previous() throws -> StorageEntry?

    /// Positions at the first entry whose key is greater than or equal to `key`.
    func seek(atOrAfter key: UnsafeRawBufferPointer) throws -> StorageEntry?
}

extension StorageTransaction {
    package func scrubAndDelete(_ table: String, _ key: UnsafeRawBufferPointer) throws -> Bool {
        try delete(table, key)
    }

    package func scrubAndPut(_ table: String, _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws {
        try put(table, key, value, append: false)
    }

    package func prefetch(_ requests: KeyReads) throws {}

    package var readsAhead: Bool { false }

    package func structureProblems() -> [String] { [] }

    package func get(_ table: String, _ key: some ContiguousBytes) throws -> UnsafeRawBufferPointer? {
        try key.withUnsafeBytes { try get(table, $0) }
    }

    package func put(_ table: String, _ key: some ContiguousBytes, _ value: some ContiguousBytes, append: Bool = false) throws {
        try key.withUnsafeBytes { key in
            try value.withUnsafeBytes { value in try put(table, key, value, append: append) }
        }
    }

    @discardableResult
    package func delete(_ table: String, _ key: some ContiguousBytes) throws -> Bool {
        try key.withUnsafeBytes { try delete(table, $0) }
    }

    @discardableResult
    package func scrubAndDelete(_ table: String, _ key: some ContiguousBytes) throws -> Bool {
        try key.withUnsafeBytes { try scrubAndDelete(table, $0) }
    }

    package func scrubAndPut(_ table: String, _ key: some ContiguousBytes, _ value: some ContiguousBytes) throws {
        try key.withUnsafeBytes { key in try value.withUnsafeBytes { try scrubAndPut(table, key, $0) } }
    }

    /// Reads the values of `keys` ahead (``prefetch(_:)``).
    package func prefetch(_ table: String, keys: [[UInt8]]) throws {
        try prefetch([(table, keys)])
    }
}

extension StorageCursor {
    package func seek(atOrAfter key: some ContiguousBytes) throws -> StorageEntry? {
        try key.withUnsafeBytes { try seek(atOrAfter: $0) }
    }
}
