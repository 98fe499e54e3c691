import Foundation

/// A transaction of a ``MemoryStorage``: a snapshot of its tables, which a write transaction changes
/// and its storage commits whole. Bytes it returns are valid until it ends or, in a write
/// transaction, until the next update.
final class MemoryTransaction: StorageTransaction {
    private(set) var tables: [String: MemoryTable]
    private let writable: Bool

    let tailDirectory: TailDirectory?

    init(tables: [String: MemoryTable], writable: Bool, tailDirectory: TailDirectory?) {
        self.tailDirectory = tailDirectory
        self.tables = tables
        self.writable = writable
    }

    func get(_ table: String, _ key: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        tables[table]?.value(for: key)?.view
    }

    func put(_ table: String, _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, append: Bool) throws {
        try requireWritable()
        tables[table, default: MemoryTable()].set(key, value)
    }

    func delete(_ table: String, _ key: UnsafeRawBufferPointer) throws -> Bool {
        try requireWritable()
        return tables[table]?.remove(key) ?? false
    }

    func count(_ table: String) throws -> Int {
        tables[table]?.count ?? 0
    }

    func withCursor<R>(_ table: String, _ body: (any StorageCursor) throws -> R) throws -> R {
        try body(MemoryCursor(transaction: self, table: table))
    }

    private func requireWritable() throws {
        guard writable else { throw EventLogError(.invalidArgument, "a write in a read-only transaction of a memory store") }
    }
}

/// A cursor of a ``MemoryTransaction``: it remembers the key it stands at, so it walks on correctly
/// when the transaction writes to the table meanwhile.
final class MemoryCursor: StorageCursor {
    private let transaction: MemoryTransaction
    private let table: String
    private var current: MemoryBytes?

    init(transaction: MemoryTransaction, table: String) {
        self.transaction = transaction
        self.table = table
    }

    private var rows: MemoryTable { transaction.tables[table] ?? MemoryTable() }

    private func entry(at index: Int) -> StorageEntry? {
        let rows = rows
        guard rows.keys.indices.contains(index) else {
            current = nil
            return nil
        }
        current = rows.keys[index]
        return (rows.keys[index].view, rows.values[index].view)
    }

    func first() throws -> StorageEntry? { entry(at: 0) }

    func last() throws -> StorageEntry? { entry(at: rows.count - 1) }

    func next() throws -> StorageEntry? {
        guard let current else { return try first() }
        return entry(at: rows.index(after: current.view))
    }

    func previous() throws -> StorageEntry? {
        guard let current else { return try last() }
        return entry(at: rows.index(atOrAfter: current.view).index - 1)
    }

    func seek(atOrAfter key: UnsafeRawBufferPointer) throws -> StorageEntry? {
        entry(at: rows.index(atOrAfter: key).index)
    }
}
