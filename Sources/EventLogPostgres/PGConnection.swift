import EventLog
import Foundation
internal import CLibPQ

/// A failure of the PostgreSQL backend: what was being done, and the server's or libpq's message.
struct PostgresError: Error, CustomStringConvertible {
    let description: String
    /// The connection broke (the server went away): the next transaction connects again.
    var isConnectionLoss = false
    /// The server's SQLSTATE code for the failure, when it sent one.
    var sqlState: String?

    /// The server refuses to write: a hot standby, or a read-only transaction (SQLSTATE 25006).
    var isReadOnlyRefusal: Bool { sqlState == "25006" }
}

/// One libpq connection. Blocking, like LMDB's calls: the engine's writer and readers are threads.
/// Results come back binary; bytes read from a ``PGResult`` stay valid while it lives.
final class PGConnection {
    private let connection: OpaquePointer

    /// Connects to `url` (a libpq connection URL or key=value string).
    init(url: String) throws {
        guard let connection = PQconnectdb(url) else { throw PostgresError(description: "libpq could not allocate a connection") }
        guard PQstatus(connection) == CONNECTION_OK else {
            defer { PQfinish(connection) }
            throw PostgresError(description: "cannot connect to the PostgreSQL server: \(Self.message(PQerrorMessage(connection)))")
        }
        self.connection = connection
        // The server's notices and the last words of a dying server are not ours to print (libpq writes
        // them to stderr by default): failures reach the caller as errors.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        try execute("SET client_min_messages = warning; SET synchronous_commit = on")
    }

    deinit { PQfinish(connection) }

    /// Whether the connection is up and outside any transaction: fit to go back to a pool.
    var isReusable: Bool {
        PQstatus(connection) == CONNECTION_OK && PQtransactionStatus(connection) == PQTRANS_IDLE
    }

    /// Whether a transaction block is open (perhaps failed): it needs ROLLBACK before reuse.
    var isInTransaction: Bool {
        let status = PQtransactionStatus(connection)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// The connection's socket, to wait on for notifications with `poll`.
    var socket: Int32 { PQsocket(connection) }

    /// Reads what the server has sent and returns the payloads of the notifications (`NOTIFY`) that
    /// arrived; throws when the connection broke.
    func receivedNotifications() throws -> [String] {
        guard PQconsumeInput(connection) == 1 else {
            throw PostgresError(description: "listening: \(Self.message(PQerrorMessage(connection)))", isConnectionLoss: true)
        }
        var payloads: [String] = []
        while let notification = PQnotifies(connection) {
            payloads.append(String(cString: notification.pointee.extra))
            PQfreemem(notification)
        }
        return payloads
    }

    /// Runs statements without parameters or results (several may be separated by semicolons).
    func execute(_ sql: String) throws {
        try endCopy()
        _ = try check(PQexec(connection, sql), sql)
    }

    /// The `COPY … FROM STDIN (FORMAT binary)` in progress, if any: rows go to it with
    /// ``putCopyData(_:)``, and every other statement ends it first (``endCopy()``).
    private var copying: String?

    /// Whether a `COPY` is in progress.
    var isCopying: Bool { copying != nil }

    /// Starts `sql`, a `COPY … FROM STDIN (FORMAT binary)`, and sends the binary format's header.
    func startBinaryCopy(_ sql: String) throws {
        try endCopy()
        let result = PQexec(connection, sql)
        guard PQresultStatus(result) == PGRES_COPY_IN else {
            _ = try check(result, sql)  // throws the server's message
            throw PostgresError(description: "\(sql): the server did not start the COPY")
        }
        PQclear(result)
        copying = sql
        try putCopyData(PGCopy.header)
    }

    /// Sends rows to the `COPY` in progress (``PGCopy/append(_:to:)``) and returns once libpq has handed
    /// them to the socket: the server takes them while the caller goes on.
    func putCopyData(_ bytes: [UInt8]) throws {
        guard let sql = copying else { throw PostgresError(description: "rows for a COPY, but none is in progress") }
        guard put(bytes), PQflush(connection) == 0 else { throw failure(sql) }
    }

    /// Hands `bytes` to libpq for the `COPY` in progress.
    private func put(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { PQputCopyData(connection, $0.baseAddress, Int32(buffer.count)) }
        } == 1
    }

    /// Ends the `COPY` in progress, if any, and waits until the server has stored every row; throws its
    /// error when it refused one (a position taken already).
    func endCopy() throws {
        guard let sql = copying else { return }
        copying = nil
        guard put(PGCopy.trailer), PQputCopyEnd(connection, nil) == 1 else { throw failure(sql) }
        let result = PQgetResult(connection)
        while let extra = PQgetResult(connection) { PQclear(extra) }
        _ = try check(result, sql)
    }

    /// Ends whatever the connection is in the middle of (a `COPY`, a transaction)
    /// without keeping any of it, so that it can go back to the pool; failures leave it unfit to
    /// (``isReusable``).
    func rollback() {
        if copying != nil {
            copying = nil
            if PQputCopyEnd(connection, "the transaction is rolled back") == 1 {
                while let result = PQgetResult(connection) { PQclear(result) }
            }
        }
        if isInTransaction { _ = try? check(PQexec(connection, "ROLLBACK"), "ROLLBACK") }
    }

    /// Sends `statement` (binary parameters, binary results) without waiting for its result: by its
    /// name if ``prepare(_:)`` made it a prepared statement.
    private func send(_ statement: PGStatement) -> Bool {
        let (count, lengths, formats) = Self.shape(statement.parameters)
        return Self.withPointers(statement.parameters) { values in
            if let name = preparedNames[statement.sql] {
                PQsendQueryPrepared(connection, name, count, values, lengths, formats, 1)
            } else {
                PQsendQueryParams(connection, statement.sql, count, nil, values, lengths, formats, 1)
            }
        } == 1
    }

    /// The names of this connection's prepared statements, by their SQL: the engine sends a few dozen
    /// statements over and over, and the server parses and plans a prepared one once, not at each use.
    private var preparedNames: [String: String] = [:]
    /// A statement with values written into its text (rare, and one-off) would add a name at each use.
    private static let preparedLimit = 256

    /// Makes `statement` a prepared statement of this connection the first time it is sent, when it is
    /// a query the server plans (not transaction control, not several statements). Not while a pipeline
    /// is open: it waits for the server's answer.
    private func prepare(_ statement: PGStatement) throws {
        guard preparedNames[statement.sql] == nil, preparedNames.count < Self.preparedLimit,
              !statement.sql.contains(";"),
              ["SELECT ", "INSERT ", "UPDATE ", "DELETE ", "WITH "].contains(where: statement.sql.hasPrefix) else { return }
        let name = "sessionstore_\(preparedNames.count)"
        _ = try check(PQprepare(connection, name, statement.sql, Int32(statement.parameters.count), nil), statement.sql)
        preparedNames[statement.sql] = name
    }

    /// libpq's description of binary parameters: their count, lengths and formats.
    private static func shape(_ parameters: [[UInt8]?]) -> (Int32, [Int32], [Int32]) {
        (Int32(parameters.count), parameters.map { Int32($0?.count ?? 0) }, [Int32](repeating: 1, count: parameters.count))
    }

    /// Runs one statement with binary `parameters` (nil is NULL); the result is binary too.
    @discardableResult
    func query(_ sql: String, _ parameters: [[UInt8]?] = []) throws -> PGResult {
        try endCopy()
        try prepare(PGStatement(sql: sql, parameters: parameters))
        let (count, lengths, formats) = Self.shape(parameters)
        let result = Self.withPointers(parameters) { values in
            if let name = preparedNames[sql] {
                PQexecPrepared(connection, name, count, values, lengths, formats, 1)
            } else {
                PQexecParams(connection, sql, count, nil, values, lengths, formats, 1)
            }
        }
        return try check(result, sql)
    }

    /// Sends `statements` together (libpq's pipeline mode: one round trip, not one each) and waits for
    /// their results, in order. When one fails the server skips the rest, and this throws its error.
    @discardableResult
    func pipeline(_ statements: [PGStatement]) throws -> [PGResult] {
        try endCopy()
        for statement in statements { try prepare(statement) }
        guard PQenterPipelineMode(connection) == 1 else { throw failure("entering pipeline mode") }
        defer { PQexitPipelineMode(connection) }
        for statement in statements where !send(statement) { throw failure(statement.sql) }
        guard PQpipelineSync(connection) == 1 else { throw failure("a pipeline's sync") }
        var results: [PGResult] = []
        var firstError: PostgresError?
        for statement in statements {
            // Each statement's result, then a null that ends it.
            guard let result = PQgetResult(connection) else { throw firstError ?? failure(statement.sql) }
            defer { PQclear(PQgetResult(connection)) }
            if PQresultStatus(result) == PGRES_PIPELINE_ABORTED {
                PQclear(result)
                continue
            }
            do {
                results.append(try check(result, statement.sql))
            } catch let error as PostgresError {
                firstError = firstError ?? error
            }
        }
        guard let sync = PQgetResult(connection) else { throw firstError ?? failure("a pipeline's sync") }
        let synced = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
        PQclear(sync)
        if let firstError { throw firstError }
        guard synced else { throw failure("a pipeline's sync") }
        return results
    }

    private func failure(_ doing: String) -> PostgresError {
        PostgresError(description: "\(doing.split(separator: "\n").first ?? ""): \(Self.message(PQerrorMessage(connection)))",
                      isConnectionLoss: PQstatus(connection) != CONNECTION_OK)
    }

    private func check(_ result: OpaquePointer?, _ sql: String) throws -> PGResult {
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK, let result else {
            let message = result.map { Self.message(PQresultErrorMessage($0)) } ?? Self.message(PQerrorMessage(connection))
            let sqlState = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) }
            PQclear(result)
            throw PostgresError(description: "\(sql.split(separator: "\n").first ?? ""): \(message)",
                                isConnectionLoss: PQstatus(connection) != CONNECTION_OK, sqlState: sqlState)
        }
        return PGResult(result)
    }

    private static func message(_ text: UnsafePointer<CChar>?) -> String {
        text.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "no message"
    }

    private static func withPointers<T>(_ buffers: [[UInt8]?], _ body: ([UnsafePointer<CChar>?]) -> T) -> T {
        var pointers: [UnsafePointer<CChar>?] = []
        pointers.reserveCapacity(buffers.count)
        func nest(_ index: Int) -> T {
            guard index < buffers.count else { return body(pointers) }
            guard let buffer = buffers[index] else {
                pointers.append(nil)
                return nest(index + 1)
            }
            return buffer.withUnsafeBufferPointer { bytes in
                // A zero-length value must still be a non-NULL pointer.
                bytes.withMemoryRebound(to: CChar.self) { characters in
                    pointers.append(characters.baseAddress ?? UnsafePointer(bitPattern: 1))
                    return nest(index + 1)
                }
            }
        }
        return nest(0)
    }
}

/// A statement and its binary parameters (nil is NULL), for ``PGConnection/pipeline(_:)``.
struct PGStatement {
    let sql: String
    var parameters: [[UInt8]?] = []
}

/// A query's rows, binary. Freed when the last reference goes.
final class PGResult {
    fileprivate let result: OpaquePointer

    fileprivate init(_ result: OpaquePointer) { self.result = result }

    deinit { PQclear(result) }

    var rowCount: Int { Int(PQntuples(result)) }

    /// The bytes of a column, or nil for NULL; valid while this result lives.
    func bytes(row: Int, column: Int) -> UnsafeRawBufferPointer? {
        guard PQgetisnull(result, Int32(row), Int32(column)) == 0 else { return nil }
        return UnsafeRawBufferPointer(start: PQgetvalue(result, Int32(row), Int32(column)),
                                      count: Int(PQgetlength(result, Int32(row), Int32(column))))
    }

    /// A bigint column (binary: eight bytes, big-endian).
    func int64(row: Int, column: Int) -> Int64? {
        guard let bytes = bytes(row: row, column: column), bytes.count == 8 else { return nil }
        return Int64(bigEndian: bytes.loadUnaligned(as: Int64.self))
    }
}
