import EventLog
import Foundation

/// A cursor of ``PostgresTransaction``: moves fetch rows ahead in the direction of travel, 16 at first and
/// up to 1,024 as a walk goes on, and fetch again after a write in the transaction.
final class PostgresCursor: StorageCursor {
    private let transaction: PostgresTransaction
    private let table: PostgresStorage.Table
    private let database: String
    private var rows: [StorageEntry] = []
    private var index = 0
    private var ascending = true
    private var generation = 0
    private var batch = 16
    private static let largestBatch = 1024

    /// Where a fetch starts, relative to its key `$1` in the direction of travel.
    enum Start { case atOrAfter, after }

    /// The query that fetches `limit` rows in key order (`ascending`, or descending), from the first row
    /// or from `$1` (`start`).
    static func query(_ table: PostgresStorage.Table, ascending: Bool, from start: Start? = nil, limit: Int = 16) -> String {
        let comparison = switch (ascending, start) {
        case (_, nil): ""
        case (true, .atOrAfter): " WHERE \(table.key) >= $1"
        case (true, .after): " WHERE \(table.key) > $1"
        case (false, .atOrAfter): " WHERE \(table.key) <= $1"
        case (false, .after): " WHERE \(table.key) < $1"
        }
        return "SELECT \(table.key), \(table.value) FROM \(table.name)\(comparison) ORDER BY \(table.key) \(ascending ? "ASC" : "DESC") LIMIT \(limit)"
    }

    init(transaction: PostgresTransaction, table: PostgresStorage.Table, database: String) {
        self.transaction = transaction
        self.table = table
        self.database = database
    }

    private var current: StorageEntry? { rows.indices.contains(index) ? rows[index] : nil }

    func first() throws -> StorageEntry? { try fetch(ascending: true, after: nil, inclusive: false) }
    func last() throws -> StorageEntry? { try fetch(ascending: false, after: nil, inclusive: false) }

    func seek(atOrAfter key: UnsafeRawBufferPointer) throws -> StorageEntry? {
        try fetch(ascending: true, after: try transaction.keyBytes(database, key), inclusive: true)
    }

    func next() throws -> StorageEntry? { try step(ascending: true) }
    func previous() throws -> StorageEntry? { try step(ascending: false) }

    private func step(ascending forward: Bool) throws -> StorageEntry? {
        guard let current else { return forward ? try first() : try last() }
        if forward == ascending, generation == transaction.generation, index + 1 < rows.count {
            index += 1
            batch = min(batch * 2, Self.largestBatch)
            return rows[index]
        }
        return try fetch(ascending: forward, after: Array(current.key), inclusive: false, growing: forward == ascending)
    }

    private func fetch(ascending forward: Bool, after key: [UInt8]?, inclusive: Bool, growing: Bool = false) throws -> StorageEntry? {
        if !growing { batch = 16 }
        try transaction.flush(database)
        let sql = Self.query(table, ascending: forward, from: key == nil ? nil : (inclusive ? .atOrAfter : .after), limit: batch)
        let result = try transaction.query(sql, key.map { [$0] } ?? [])
        let fetched: [StorageEntry] = (0..<result.rowCount).compactMap { row in
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
