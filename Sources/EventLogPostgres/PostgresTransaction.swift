import EventLog
import Foundation

/// A transaction of ``PostgresStorage``. Writes are held and sent together, one statement per table per
/// 10,000 rows, so that a transaction costs a few round trips rather than one per row:
///
/// - appended records (`put(_:_:_:append: true)` on `events`) as one `INSERT … SELECT FROM unnest` of
///   two binary arrays, or, once ``streamedAppends`` are held, streamed through a binary `COPY` that
///   stays open while the caller seals more, so that the server stores records while the client
///   works (a position taken already is an error either way, as it must be);
/// - every other put as one upsert from `unnest` per table, the last value put per key.
///
/// A table's held rows are sent before a cursor, count or delete touches that table, and all of them
/// with COMMIT, in one pipeline (``PostgresStorage``). `get` answers from the held rows, then from what
/// the transaction read ahead or sent, and asks the server only for a key it knows nothing of. So every
/// read in the transaction sees every write. Results and held values are kept until the transaction
/// ends, so the bytes it lends stay valid at least as long as an LMDB transaction's.
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
    /// Values known without asking the server, by table and key (nil: not there): read ahead by
    /// ``prefetch(_:)`` or ``readAhead(whole:from:)``, or sent by this transaction. Their bytes live
    /// in `results` or `sentUpserts`. A put drops its key here (the held value answers); a delete makes it
    /// nil.
    private var known: [String: [[UInt8]: UnsafeRawBufferPointer?]] = [:]
    /// Tables read whole: a key not in `known` is not there.
    private var wholeTables: Set<String> = []
    /// Answers to parameterless queries sent ahead (with BEGIN), by SQL; used once, before any write.
    private var answered: [String: PGResult] = [:]
    private static let batch = 10_000
    /// Held appended records at least this many go to the server at once, through the `COPY` (one round
    /// trip to start it); fewer go with COMMIT, costing no round trip of their own.
    private static let streamedAppends = 256
    private static let copyEvents = "COPY events (position, record) FROM STDIN (FORMAT binary)"
    /// The position after the last record this transaction appended, if it appended any.
    private(set) var appendedEnd: Int64?
    /// Bumped by every write: a cursor's known rows from before it are stale.
    private(set) var generation = 0

    init(connection: PGConnection) {
        self.connection = connection
    }

    func query(_ sql: String, _ parameters: [[UInt8]?] = []) throws -> PGResult {
        let result = try (parameters.isEmpty ? answered.removeValue(forKey: sql) : nil) ?? connection.query(sql, parameters)
        results.append(result)  // the bytes lent from it stay valid until the transaction ends
        return result
    }

    func get(_ table: String, _ key: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        let key = try keyBytes(table, key)
        if let held = heldUpserts[table]?[key] { return UnsafeRawBufferPointer(held.bytes) }
        if let value = known[table]?[key] { return value }
        if wholeTables.contains(table) { return nil }
        // Other held rows need not be sent first: none of them is this key's.
        if table == StoreLayout.events { try flushAppends() }
        let result = try query(try PostgresStorage.table(table).select, [key])
        return result.rowCount == 0 ? nil : result.bytes(row: 0, column: 0)
    }

    func put(_ table: String, _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, append: Bool) throws {
        let key = try keyBytes(table, key)
        generation += 1
        answered.removeAll()
        known[table]?[key] = nil
        if append, table == StoreLayout.events {
            appendedPositions.append(key.withUnsafeBytes { Int64(bigEndian: $0.loadUnaligned(as: Int64.self)) })
            appendedRecords.append(value.withUnsafeBytes { Array($0) })
            if appendedPositions.count >= Self.streamedAppends { try streamAppends() }
            return
        }
        if table == StoreLayout.events { try flushAppends() }
        heldUpserts[table, default: [:]][key] = HeldBytes(value)
        if heldUpserts[table]!.count >= Self.batch { try flush(table) }
    }

    /// The other keys' held upserts stay held: a delete of this key needs none of them on the server first. A key this
    /// transaction knows to be absent costs no round trip.
    func delete(_ table: String, _ key: UnsafeRawBufferPointer) throws -> Bool {
        if table == StoreLayout.events { try flushAppends() }
        let key = try keyBytes(table, key)
        let wasHeld = heldUpserts[table]?.removeValue(forKey: key) != nil
        let knownAbsent = known[table]?[key].map { $0 == nil } ?? false
        let delete = try PostgresStorage.table(table).delete
        generation += 1
        answered.removeAll()
        known[table, default: [:]][key] = .some(nil)
        if knownAbsent { return wasHeld }
        return try connection.query(delete, [key]).rowCount > 0 || wasHeld
    }

    /// Reads the values of the keys of every table named, one query per table, all in one round trip;
    /// `get` then answers from them. Keys `get` can answer already are not asked for again.
    var readsAhead: Bool { true }

    func prefetch(_ requests: KeyReads) throws {
        let (requests, statements) = try queries(reading: requests)
        guard !statements.isEmpty else { return }
        // Records appended here are not on the server yet: send them first if any is asked for.
        if let firstHeld = appendedPositions.min(),
           requests.contains(where: { $0.table == StoreLayout.events && $0.keys.contains { Self.position($0) >= firstHeld } }) {
            try flushAppends()
        }
        take(requests, answers: try connection.pipeline(statements))
    }

    /// The reads of `requests` that `get` cannot answer yet, and a query for each table of them.
    func queries(reading requests: KeyReads) throws -> (KeyReads, [PGStatement]) {
        let requests = try requests.map { request in
            (table: request.table, keys: try request.keys.map { try keyBytes(request.table, $0) }.filter { !isAnswered(request.table, $0) })
        }.filter { !$0.keys.isEmpty }
        let statements = try requests.map { request in
            let definition = try PostgresStorage.table(request.table)
            return PGStatement(sql: "SELECT \(definition.key), \(definition.value) FROM \(definition.name) WHERE \(definition.key) = ANY($1::\(definition.keyType)[])",
                               parameters: [request.table == StoreLayout.events ? PGArray.int8(request.keys.map(Self.position)) : PGArray.bytea(request.keys)])
        }
        return (requests, statements)
    }

    /// Takes the answers to the ``queries(reading:)`` of `requests`: `get` answers those keys from them.
    func take(_ requests: KeyReads, answers: [PGResult]) {
        results += answers
        for (request, result) in zip(requests, answers) {
            var values = known[request.table] ?? [:]
            for key in request.keys { values[key] = .some(nil) }
            values.merge(Self.values(in: result)) { _, found in found }
            known[request.table] = values
        }
    }

    /// Whether `get` answers `key` of `table` without the server.
    private func isAnswered(_ table: String, _ key: [UInt8]) -> Bool {
        heldUpserts[table]?[key] != nil || known[table]?[key] != nil || wholeTables.contains(table)
    }

    /// Takes every row of `table` from `result` (its key and value columns): `get` then answers every key
    /// of it without the server.
    func readAhead(whole table: String, from result: PGResult) {
        results.append(result)
        known[table] = Self.values(in: result)
        wholeTables.insert(table)
    }

    /// The rows of a key-and-value query, by key; the bytes live in `result`.
    private static func values(in result: PGResult) -> [[UInt8]: UnsafeRawBufferPointer?] {
        var values: [[UInt8]: UnsafeRawBufferPointer?] = [:]
        for row in 0..<result.rowCount {
            guard let key = result.bytes(row: row, column: 0), let value = result.bytes(row: row, column: 1) else { continue }
            values[Array(key)] = value
        }
        return values
    }

    /// Keeps `result` as the answer to `sql` (a parameterless query sent ahead), until a write.
    func readAhead(answer result: PGResult, to sql: String) {
        answered[sql] = result
    }

    func count(_ table: String) throws -> Int {
        try flush(table)
        return Int(try connection.query("SELECT count(*) FROM \(try PostgresStorage.table(table).name)").int64(row: 0, column: 0) ?? 0)
    }

    func withCursor<R>(_ table: String, _ body: (any StorageCursor) throws -> R) throws -> R {
        try flush(table)
        return try body(PostgresCursor(transaction: self, table: try PostgresStorage.table(table), database: table))
    }

    /// Sends what is held for `table`.
    func flush(_ table: String) throws {
        let statements = (table == StoreLayout.events ? [try takeAppends()] : []) + [try takeUpserts(table)]
        for statement in statements.compactMap({ $0 }) { try connection.query(statement.sql, statement.parameters) }
    }

    /// Everything held, as statements to send before COMMIT (appends go to a `COPY` in progress).
    func takeHeldStatements() throws -> [PGStatement] {
        ([try takeAppends()] + (try Array(heldUpserts.keys).map(takeUpserts))).compactMap { $0 }
    }

    /// The held upserts of `table` as one statement, now counted as sent: `get` answers them from here on.
    private func takeUpserts(_ table: String) throws -> PGStatement? {
        guard let rows = heldUpserts.removeValue(forKey: table), !rows.isEmpty else { return nil }
        let definition = try PostgresStorage.table(table)
        sentUpserts.append(Array(rows.values))
        for (key, value) in rows { known[table, default: [:]][key] = UnsafeRawBufferPointer(value.bytes) }
        let keys = Array(rows.keys)
        let values = rows.values.map { Array($0.bytes) }
        return PGStatement(sql: definition.batchUpsert,
                           parameters: [table == StoreLayout.events ? PGArray.int8(keys.map(Self.position)) : PGArray.bytea(keys), PGArray.bytea(values)])
    }

    /// Puts the held appended records on the server, where the next statement sees them.
    private func flushAppends() throws {
        if let statement = try takeAppends() { try connection.query(statement.sql, statement.parameters) }
        try connection.endCopy()
    }

    /// The held appended records as one `INSERT … SELECT FROM unnest` of two binary arrays; or, while a
    /// `COPY` of them is in progress, nil after sending them to it (the next statement ends it).
    private func takeAppends() throws -> PGStatement? {
        guard !appendedPositions.isEmpty else { return nil }
        if connection.isCopying {
            try streamAppends()
            return nil
        }
        let statement = PGStatement(sql: "INSERT INTO events (position, record) SELECT * FROM unnest($1::bigint[], $2::bytea[])",
                                    parameters: [PGArray.int8(appendedPositions), PGArray.bytea(appendedRecords)])
        takeAppendedRows()
        return statement
    }

    /// Sends the held appended records to the `COPY` of them, started first when none is in progress.
    private func streamAppends() throws {
        if !connection.isCopying { try connection.startBinaryCopy(Self.copyEvents) }
        var rows: [UInt8] = []
        rows.reserveCapacity(appendedRecords.reduce(appendedRecords.count * 18) { $0 + $1.count })
        for (position, record) in zip(appendedPositions, appendedRecords) { PGCopy.append(position, record, to: &rows) }
        takeAppendedRows()
        try connection.putCopyData(rows)
    }

    /// Counts the held appended records as sent.
    private func takeAppendedRows() {
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
