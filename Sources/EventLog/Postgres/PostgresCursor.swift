import Foundation

/// A cursor of ``PostgresTransaction``: moves fetch rows ahead in the direction of travel, 16 at first and
/// up to 1,024 as a walk goes on, and fetch again after a write in the transaction.
final class PostgresCursor: StorageCursor {
    private let transaction: PostgresTransaction
    private let table: PostgresStorage.Table
    private let database: String
    private var rows: [Entry] = []
    private var index = 0
    private var ascending = true
    private var generation = 0
    private var batch = 16

    init(transaction: PostgresTransaction, table: PostgresStorage.Table, database: String) {
        self.transaction = transaction
        self.table = table
        self.database = database
    }

    private var current: Entry? { rows.indices.contains(index) ? rows[index] : nil }

    func first() throws -> Entry? { try fetch(ascending: true, after: nil, inclusive: false) }
    func last() throws -> Entry? { try fetch(ascending: false, after: nil, inclusive: false) }

    func seek(atOrAfter key: some ContiguousBytes) throws -> Entry? {
        try fetch(ascending: true, after: try transaction.keyBytes(database, key), inclusive: true)
    }

    func next() throws -> Entry? { try step(ascending: true) }
    func previous() throws -> Entry? { try step(ascending: false) }

    private func step(ascending forward: Bool) throws -> Entry? {
        guard let current else { return forward ? try first() : try last() }
        if forward == ascending, generation == transaction.generation, index + 1 < rows.count {
            index += 1
            batch = min(batch * 2, 1024)
            return rows[index]
        }
        return try fetch(ascending: forward, after: Array(current.key), inclusive: false, growing: forward == ascending)
    }

    private func fetch(ascending forward: Bool, after key: [UInt8]?, inclusive: Bool, growing: Bool = false) throws -> Entry? {
        if !growing { batch = 16 }
        try transaction.flush(database)
        let order = forward ? "ASC" : "DESC"
        let comparison = forward ? (inclusive ? ">=" : ">") : (inclusive ? "<=" : "<")
        let condition = key == nil ? "" : "WHERE \(table.key) \(comparison) $1"
        let result = try transaction.query("SELECT \(table.key), \(table.value) FROM \(table.name) \(condition) ORDER BY \(table.key) \(order) LIMIT \(batch)",
                                           key.map { [$0] } ?? [])
        let fetched: [Entry] = (0..<result.rowCount).compactMap { row in
            guard let key = result.bytes(row: row, column: 0), let value = result.bytes(row: row, column: 1) else { return nil }
            return (key, value)
        }
        // Stepping past either end leaves the cursor where it was, as LMDB's does.
        if fetched.isEmpty, growing || key != nil && !inclusive { return nil }
        rows = fetched
        index = 0
        ascending = forward
        generation = transaction.generation
        return current
    }
}
