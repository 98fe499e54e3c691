import Foundation

/// A transaction of ``PostgresStorage``. Writes are held and sent together, one statement per table per
/// 10,000 rows, so that a transaction costs a few round trips rather than one per row:
///
/// - appended records (`put(_:_:_:append: true)` on `events`) as one `INSERT … SELECT FROM unnest` of
///   two binary arrays (a position taken already is an error, as it must be);
/// - every other put as one upsert from `unnest` per table, the last value put per key.
///
/// A table's held rows are sent before a cursor, count or delete touches that table, and all of them
/// before COMMIT; `get` answers from the held rows first. So every read in the transaction sees every
/// write. Results and held values are kept until the transaction ends, so the bytes it lends stay valid
/// at least as long as an LMDB transaction's.
final class PostgresTransaction: StorageTransaction {
    let connection: PGConnection
    private var results: [PGResult] = []
    /// Appended records not yet sent: positions and records.
    private var appendedPositions: [Int64] = []
    private var appendedRecords: [[UInt8]] = []
    /// Upserts not yet sent, by table: the last value put per key.
    private var heldUpserts: [String: [[UInt8]: HeldBytes]] = [:]
    /// Held values already sent: kept so that bytes `get` lent from them stay valid.
    private var sentUpserts: [[HeldBytes]] = []
    /// Values read ahead by ``prefetch(_:keys:)``, by table and key (nil: not there); their bytes live in
    /// `results`. Dropped for a key when it is put or deleted.
    private var prefetched: [String: [[UInt8]: UnsafeRawBufferPointer?]] = [:]
    private static let batch = 10_000
    /// The position after the last record this transaction appended, if it appended any.
    private(set) var appendedEnd: Int64?
    /// Bumped by every write: a cursor's prefetched rows from before it are stale.
    private(set) var generation = 0

    init(connection: PGConnection) {
        self.connection = connection
    }

    func query(_ sql: String, _ parameters: [[UInt8]?] = []) throws -> PGResult {
        let result = try connection.query(sql, parameters)
        results.append(result)
        return result
    }

    func get(_ table: String, _ key: some ContiguousBytes) throws -> UnsafeRawBufferPointer? {
        let key = try keyBytes(table, key)
        if let held = heldUpserts[table]?[key] { return UnsafeRawBufferPointer(held.bytes) }
        if let value = prefetched[table]?[key] { return value }
        try flush(table)
        let result = try query(try PostgresStorage.table(table).select, [key])
        return result.rowCount == 0 ? nil : result.bytes(row: 0, column: 0)
    }

    func put(_ table: String, _ key: some ContiguousBytes, _ value: some ContiguousBytes, append: Bool = false) throws {
        let key = try keyBytes(table, key)
        generation += 1
        prefetched[table]?[key] = nil
        if append, table == StoreLayout.events {
            appendedPositions.append(key.withUnsafeBytes { Int64(bigEndian: $0.loadUnaligned(as: Int64.self)) })
            appendedRecords.append(value.withUnsafeBytes { Array($0) })
            if appendedPositions.count >= Self.batch { try flushAppends() }
            return
        }
        if table == StoreLayout.events { try flushAppends() }
        heldUpserts[table, default: [:]][key] = HeldBytes(value)
        if heldUpserts[table]!.count >= Self.batch { try flush(table) }
    }

    @discardableResult
    func delete(_ table: String, _ key: some ContiguousBytes) throws -> Bool {
        try flush(table)
        let key = try keyBytes(table, key)
        prefetched[table]?[key] = nil
        let delete = try PostgresStorage.table(table).delete
        generation += 1
        return try connection.query(delete, [key]).rowCount > 0
    }

    /// Reads the values of `keys` in one query; `get` then answers from them.
    func prefetch(_ table: String, keys: [[UInt8]]) throws {
        try flush(table)
        let definition = try PostgresStorage.table(table)
        let bound = try keys.map { try keyBytes(table, $0) }
        let result = try query("SELECT \(definition.key), \(definition.value) FROM \(definition.name) WHERE \(definition.key) = ANY($1::\(definition.keyType)[])",
                               [table == StoreLayout.events ? PGArray.int8(bound.map(Self.position)) : PGArray.bytea(bound)])
        var values = prefetched[table] ?? [:]
        for key in bound { values[key] = .some(nil) }
        for row in 0..<result.rowCount {
            guard let key = result.bytes(row: row, column: 0), let value = result.bytes(row: row, column: 1) else { continue }
            values[Array(key)] = value
        }
        prefetched[table] = values
    }

    func count(_ table: String) throws -> Int {
        try flush(table)
        return Int(try connection.query("SELECT count(*) FROM \(try PostgresStorage.table(table).name)").int64(row: 0, column: 0) ?? 0)
    }

    func withCursor<R>(_ table: String, _ body: (PostgresCursor) throws -> R) throws -> R {
        try flush(table)
        return try body(PostgresCursor(transaction: self, table: try PostgresStorage.table(table), database: table))
    }

    /// Sends what is held for `table`.
    func flush(_ table: String) throws {
        if table == StoreLayout.events { try flushAppends() }
        guard let rows = heldUpserts.removeValue(forKey: table), !rows.isEmpty else { return }
        sentUpserts.append(Array(rows.values))
        let keys = Array(rows.keys)
        let values = rows.values.map { Array($0.bytes) }
        try connection.query(try PostgresStorage.table(table).batchUpsert,
                             [table == StoreLayout.events ? PGArray.int8(keys.map(Self.position)) : PGArray.bytea(keys), PGArray.bytea(values)])
    }

    /// Sends everything held, before COMMIT.
    func flushAll() throws {
        try flushAppends()
        for table in Array(heldUpserts.keys) { try flush(table) }
    }

    /// Sends the held appended records, in one `INSERT … SELECT FROM unnest` of two binary arrays.
    private func flushAppends() throws {
        guard !appendedPositions.isEmpty else { return }
        try connection.query("INSERT INTO events (position, record) SELECT * FROM unnest($1::bigint[], $2::bytea[])",
                             [PGArray.int8(appendedPositions), PGArray.bytea(appendedRecords)])
        appendedEnd = max(appendedEnd ?? 0, appendedPositions.max()! + 1)
        appendedPositions.removeAll(keepingCapacity: true)
        appendedRecords.removeAll(keepingCapacity: true)
    }

    /// The key as bound: `events` takes exactly eight bytes (a bigint).
    func keyBytes(_ table: String, _ key: some ContiguousBytes) throws -> [UInt8] {
        let bytes = key.withUnsafeBytes { Array($0) }
        if table == StoreLayout.events, bytes.count != 8 || bytes[0] & 0x80 != 0 {
            throw PostgresError(description: "an events key must be a position: eight big-endian bytes below 2⁶³")
        }
        return bytes
    }

    private static func position(_ key: [UInt8]) -> Int64 {
        key.withUnsafeBytes { Int64(bigEndian: $0.loadUnaligned(as: Int64.self)) }
    }
}

/// A held value, at an address that stays put while it lives (so `get` may lend it).
private final class HeldBytes {
    let bytes: UnsafeMutableRawBufferPointer

    init(_ value: some ContiguousBytes) {
        bytes = value.withUnsafeBytes { source in
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: source.count, alignment: 1)
            copy.copyMemory(from: source)
            return copy
        }
    }

    deinit { bytes.deallocate() }
}
