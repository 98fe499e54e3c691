import Foundation

/// Keys to read ahead, by table (``StoreTransaction/prefetch(_:)``).
typealias KeyReads = [(table: String, keys: [[UInt8]])]

/// A transaction on whichever backend holds the store: the one type the engine is written against.
/// A switch per call is nothing next to a B-tree lookup, let alone a round trip to a server.
enum StoreTransaction: StorageTransaction {
    case lmdb(LMDBTransaction)
    case postgres(PostgresTransaction)
    case memory(MemoryTransaction)

    func get(_ table: String, _ key: some ContiguousBytes) throws -> UnsafeRawBufferPointer? {
        switch self {
        case .lmdb(let txn): try txn.get(table, key)
        case .postgres(let txn): try txn.get(table, key)
        case .memory(let txn): try txn.get(table, key)
        }
    }

    func put(_ table: String, _ key: some ContiguousBytes, _ value: some ContiguousBytes, append: Bool = false) throws {
        switch self {
        case .lmdb(let txn): try txn.put(table, key, value, append: append)
        case .postgres(let txn): try txn.put(table, key, value, append: append)
        case .memory(let txn): try txn.put(table, key, value, append: append)
        }
    }

    @discardableResult
    func delete(_ table: String, _ key: some ContiguousBytes) throws -> Bool {
        switch self {
        case .lmdb(let txn): try txn.delete(table, key)
        case .postgres(let txn): try txn.delete(table, key)
        case .memory(let txn): try txn.delete(table, key)
        }
    }

    /// Deletes `key` leaving no copy of its value behind where the backend allows it: LMDB overwrites
    /// it in place first (see ``LMDBTransaction/scrubAndDelete(_:_:)``); PostgreSQL keeps a dead row
    /// version until VACUUM, which erasure runs after committing; a memory store zeroes the bytes once no
    /// snapshot holds them. Returns whether the key was there.
    @discardableResult
    func scrubAndDelete(_ table: String, _ key: some ContiguousBytes) throws -> Bool {
        switch self {
        case .lmdb(let txn): try txn.scrubAndDelete(table, key)
        case .postgres(let txn): try txn.delete(table, key)
        case .memory(let txn): try txn.delete(table, key)
        }
    }

    /// Reads the values of `keys` ahead, so that the `get`s of them that follow cost no round trip to a
    /// server (PostgreSQL: one query for all of them). LMDB reads from memory: nothing to do.
    func prefetch(_ table: String, keys: [[UInt8]]) throws {
        try prefetch([(table, keys)])
    }

    /// Reads ahead the keys of several tables at once (PostgreSQL: one round trip for all).
    func prefetch(_ requests: KeyReads) throws {
        if case .postgres(let txn) = self { try txn.prefetch(requests) }
    }

    func count(_ table: String) throws -> Int {
        switch self {
        case .lmdb(let txn): try txn.count(table)
        case .postgres(let txn): try txn.count(table)
        case .memory(let txn): try txn.count(table)
        }
    }

    func withCursor<R>(_ table: String, _ body: (StoreCursor) throws -> R) throws -> R {
        switch self {
        case .lmdb(let txn): try txn.withCursor(table) { try body(.lmdb($0)) }
        case .postgres(let txn): try txn.withCursor(table) { try body(.postgres($0)) }
        case .memory(let txn): try txn.withCursor(table) { try body(.memory($0)) }
        }
    }
}

/// A cursor of a ``StoreTransaction``.
enum StoreCursor: StorageCursor {
    case lmdb(LMDBCursor)
    case postgres(PostgresCursor)
    case memory(MemoryCursor)

    func first() throws -> Entry? {
        switch self {
        case .lmdb(let cursor): try cursor.first()
        case .postgres(let cursor): try cursor.first()
        case .memory(let cursor): try cursor.first()
        }
    }

    func last() throws -> Entry? {
        switch self {
        case .lmdb(let cursor): try cursor.last()
        case .postgres(let cursor): try cursor.last()
        case .memory(let cursor): try cursor.last()
        }
    }

    func next() throws -> Entry? {
        switch self {
        case .lmdb(let cursor): try cursor.next()
        case .postgres(let cursor): try cursor.next()
        case .memory(let cursor): try cursor.next()
        }
    }

    func previous() throws -> Entry? {
        switch self {
        case .lmdb(let cursor): try cursor.previous()
        case .postgres(let cursor): try cursor.previous()
        case .memory(let cursor): try cursor.previous()
        }
    }

    func seek(atOrAfter key: some ContiguousBytes) throws -> Entry? {
        switch self {
        case .lmdb(let cursor): try cursor.seek(atOrAfter: key)
        case .postgres(let cursor): try cursor.seek(atOrAfter: key)
        case .memory(let cursor): try cursor.seek(atOrAfter: key)
        }
    }

    /// Tells the cursor its walk goes on forward: on PostgreSQL the next rows are asked for now, to
    /// arrive while the caller works on these. LMDB reads from memory: nothing to do.
    func readAhead() {
        if case .postgres(let cursor) = self { cursor.readAhead() }
    }
}
