import Foundation

/// The seam between the engine and where its bytes live (issue 13): ordered key-value tables, read and
/// written in transactions. LMDB implements it with its databases (``LMDBTransaction``), PostgreSQL
/// with a table per LMDB database (``PostgresTransaction``, docs/FORMAT.md "PostgreSQL"). Keys order
/// as unsigned bytes in both.
///
/// Bytes a transaction returns are valid until it ends, or in a write transaction until its next
/// update: copy or decode them before either.
protocol StorageTransaction {
    associatedtype Cursor: StorageCursor

    func get(_ table: String, _ key: some ContiguousBytes) throws -> UnsafeRawBufferPointer?

    /// Stores `value` at `key`, replacing what was there. `append` promises that `key` sorts after every
    /// key of the table (LMDB then skips the search).
    func put(_ table: String, _ key: some ContiguousBytes, _ value: some ContiguousBytes, append: Bool) throws

    /// Deletes `key`; returns whether it was there.
    @discardableResult
    func delete(_ table: String, _ key: some ContiguousBytes) throws -> Bool

    /// How many entries `table` holds.
    func count(_ table: String) throws -> Int

    func withCursor<R>(_ table: String, _ body: (Cursor) throws -> R) throws -> R
}

/// A cursor over one table of a ``StorageTransaction``, in key order.
protocol StorageCursor {
    typealias Entry = (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)

    func first() throws -> Entry?
    func last() throws -> Entry?
    func next() throws -> Entry?
    func previous() throws -> Entry?

    /// Positions at the first entry whose key is greater than or equal to `key`.
    func seek(atOrAfter key: some ContiguousBytes) throws -> Entry?
}

extension LMDBTransaction: StorageTransaction {}
extension LMDBCursor: StorageCursor {}
