import Foundation
internal import CLMDB

/// A transaction lent to a closure by ``LMDBEnvironment``. Bytes it returns point into the map and
/// are valid only until the transaction ends or, in a write transaction, until the next update:
/// copy or decode them inside the closure.
struct LMDBTransaction {
    let txn: OpaquePointer
    unowned let environment: LMDBEnvironment

    /// The snapshot's transaction id (the committed transaction it reads).
    var id: UInt64 { UInt64(mdb_txn_id(txn)) }

    func get(_ database: String, _ key: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        var keyValue = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var value = MDB_val()
        let code = mdb_get(txn, try environment.database(database), &keyValue, &value)
        if code == MDB_NOTFOUND { return nil }
        try LMDBError.check(code, "mdb_get(\(database))")
        return UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)
    }

    func put(_ database: String, _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, append: Bool = false) throws {
        var keyValue = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var dataValue = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        let flags = append ? UInt32(MDB_APPEND) : 0
        try LMDBError.check(mdb_put(txn, try environment.database(database), &keyValue, &dataValue, flags), "mdb_put(\(database))")
    }

    /// Deletes `key`; returns whether it was there.
    @discardableResult
    func delete(_ database: String, _ key: UnsafeRawBufferPointer) throws -> Bool {
        var keyValue = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        let code = mdb_del(txn, try environment.database(database), &keyValue, nil)
        if code == MDB_NOTFOUND { return false }
        try LMDBError.check(code, "mdb_del(\(database))")
        return true
    }

    /// Overwrites the value at `key` with zeros in place, then deletes it: LMDB moves no bytes over
    /// a deleted entry that sat lowest in its page, so without this a copy of the value would stay
    /// in the page's free space (and be written with it). Returns whether the key was there.
    @discardableResult
    func scrubAndDelete(_ database: String, _ key: UnsafeRawBufferPointer) throws -> Bool {
        guard let value = try get(database, key) else { return false }
        try put(database, key, [UInt8](repeating: 0, count: value.count), append: false)
        return try delete(database, key)
    }

    /// Stores `value` at `key`; a value of another size there is scrubbed and deleted first (``scrubAndDelete(_:_:)``):
    /// LMDB overwrites a value of the same size in place, but moves one of another size.
    func scrubAndPut(_ database: String, _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws {
        if let old = try get(database, key), old.count != value.count {
            try scrubAndDelete(database, key)
        }
        try put(database, key, value, append: false)
    }

    /// How many entries a database holds.
    func count(_ database: String) throws -> Int {
        var stat = MDB_stat()
        try LMDBError.check(mdb_stat(txn, try environment.database(database), &stat), "mdb_stat(\(database))")
        return stat.ms_entries
    }

    func withCursor<R>(_ database: String, _ body: (any StorageCursor) throws -> R) throws -> R {
        var cursor: OpaquePointer?
        try LMDBError.check(mdb_cursor_open(txn, try environment.database(database), &cursor), "mdb_cursor_open(\(database))")
        defer { mdb_cursor_close(cursor) }
        return try body(LMDBCursor(cursor: cursor!, database: database))
    }
}

/// A cursor lent inside ``LMDBTransaction/withCursor(_:_:)``.
struct LMDBCursor {
    let cursor: OpaquePointer
    let database: String

    func first() throws -> StorageEntry? { try move(MDB_FIRST) }
    func last() throws -> StorageEntry? { try move(MDB_LAST) }
    func next() throws -> StorageEntry? { try move(MDB_NEXT) }
    func previous() throws -> StorageEntry? { try move(MDB_PREV) }

    /// Positions at the first entry whose key is greater than or equal to `key`.
    func seek(atOrAfter key: UnsafeRawBufferPointer) throws -> StorageEntry? {
        var keyValue = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var value = MDB_val()
        return try finish(mdb_cursor_get(cursor, &keyValue, &value, MDB_SET_RANGE), keyValue, value)
    }

    private func move(_ op: MDB_cursor_op) throws -> StorageEntry? {
        var key = MDB_val()
        var value = MDB_val()
        return try finish(mdb_cursor_get(cursor, &key, &value, op), key, value)
    }

    private func finish(_ code: Int32, _ key: MDB_val, _ value: MDB_val) throws -> StorageEntry? {
        if code == MDB_NOTFOUND { return nil }
        try LMDBError.check(code, "mdb_cursor_get(\(database))")
        return (UnsafeRawBufferPointer(start: key.mv_data, count: key.mv_size),
                UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size))
    }
}
