import CBenchLibPQ
import Foundation

/// Just enough of libpq for the client measurement: statements, binary parameters and results, COPY.
final class LibPQ {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let connection: OpaquePointer

    init(url: String) throws {
        guard let connection = PQconnectdb(url) else { throw Failure(description: "libpq cannot allocate a connection") }
        guard PQstatus(connection) == CONNECTION_OK else {
            defer { PQfinish(connection) }
            throw Failure(description: "cannot connect to \(url): \(String(cString: PQerrorMessage(connection)))")
        }
        self.connection = connection
    }

    deinit { PQfinish(connection) }

    func execute(_ sql: String) throws {
        try check(PQexec(connection, sql), sql).map(PQclear)
    }

    /// Runs `sql` with binary parameters; the result, also binary, goes to `body` before it is freed.
    @discardableResult
    func execute<T>(_ sql: String, binary parameters: [[UInt8]], _ body: (OpaquePointer) throws -> T) throws -> T {
        let lengths = parameters.map { Int32($0.count) }
        let formats = [Int32](repeating: 1, count: parameters.count)
        let result = try withPointers(parameters) { values in
            try check(PQexecParams(connection, sql, Int32(parameters.count), nil, values, lengths, formats, 1), sql)
        }
        guard let result else { throw Failure(description: "\(sql.prefix(60)): no result") }
        defer { PQclear(result) }
        return try body(result)
    }

    /// `COPY … FROM STDIN (FORMAT binary)` with `data`, sent in pieces of at most 1 MiB.
    func copy(_ sql: String, data: [UInt8]) throws {
        try check(PQexec(connection, sql), sql, expecting: PGRES_COPY_IN).map(PQclear)
        var offset = 0
        while offset < data.count {
            let end = min(data.count, offset + (1 << 20))
            let sent = data[offset..<end].withUnsafeBufferPointer { piece in
                piece.withMemoryRebound(to: CChar.self) { PQputCopyData(connection, $0.baseAddress, Int32($0.count)) }
            }
            guard sent == 1 else { throw Failure(description: "COPY: \(String(cString: PQerrorMessage(connection)))") }
            offset = end
        }
        guard PQputCopyEnd(connection, nil) == 1 else { throw Failure(description: "COPY: \(String(cString: PQerrorMessage(connection)))") }
        while let result = PQgetResult(connection) {
            defer { PQclear(result) }
            guard PQresultStatus(result) == PGRES_COMMAND_OK else {
                throw Failure(description: "COPY: \(String(cString: PQresultErrorMessage(result)))")
            }
        }
    }

    /// Sends `sql` with rows delivered one result per row (libpq's single-row mode), binary.
    func eachRow(_ sql: String, _ row: (OpaquePointer) throws -> Void) throws {
        guard PQsendQueryParams(connection, sql, 0, nil, nil, nil, nil, 1) == 1, PQsetSingleRowMode(connection) == 1 else {
            throw Failure(description: "\(sql.prefix(60)): \(String(cString: PQerrorMessage(connection)))")
        }
        var failure: (any Error)?
        while let result = PQgetResult(connection) {
            defer { PQclear(result) }
            switch PQresultStatus(result) {
            case PGRES_SINGLE_TUPLE:
                if failure == nil {
                    do { try row(result) } catch { failure = error }
                }
            case PGRES_TUPLES_OK: break
            default: failure = failure ?? Failure(description: "\(sql.prefix(60)): \(String(cString: PQresultErrorMessage(result)))")
            }
        }
        if let failure { throw failure }
    }

    private func check(_ result: OpaquePointer?, _ sql: String, expecting: ExecStatusType? = nil) throws -> OpaquePointer? {
        let status = PQresultStatus(result)
        let fine = expecting.map { status == $0 } ?? (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK)
        guard fine else {
            defer { PQclear(result) }
            let message = result.map { String(cString: PQresultErrorMessage($0)) } ?? String(cString: PQerrorMessage(connection))
            throw Failure(description: "\(sql.prefix(60)): \(message)")
        }
        return result
    }

    private func withPointers<T>(_ buffers: [[UInt8]], _ body: ([UnsafePointer<CChar>?]) throws -> T) rethrows -> T {
        var pointers: [UnsafePointer<CChar>?] = []
        func nest(_ index: Int) throws -> T {
            guard index < buffers.count else { return try body(pointers) }
            return try buffers[index].withUnsafeBufferPointer { buffer in
                try buffer.withMemoryRebound(to: CChar.self) { characters in
                    pointers.append(characters.baseAddress)
                    return try nest(index + 1)
                }
            }
        }
        return try nest(0)
    }
}

/// PostgreSQL's binary formats: one-dimensional arrays (parameters) and COPY's binary stream.
enum PostgresBinary {
    static let int8OID: Int32 = 20
    static let byteaOID: Int32 = 17

    static func append(_ value: Int32, to bytes: inout [UInt8]) { withUnsafeBytes(of: value.bigEndian) { bytes += $0 } }
    static func append(_ value: Int16, to bytes: inout [UInt8]) { withUnsafeBytes(of: value.bigEndian) { bytes += $0 } }
    static func append(_ value: Int64, to bytes: inout [UInt8]) { withUnsafeBytes(of: value.bigEndian) { bytes += $0 } }

    /// An array of `elements`, each already in its binary form, of element type `oid`.
    static func array(oid: Int32, _ elements: some Collection<[UInt8]>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 + elements.reduce(0) { $0 + 4 + $1.count })
        for field in [Int32(1), 0, oid, Int32(elements.count), 1] { append(field, to: &bytes) }
        for element in elements {
            append(Int32(element.count), to: &bytes)
            bytes += element
        }
        return bytes
    }

    static func int8(_ value: Int64) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }

    /// COPY's binary stream of (bigint, bytea) rows.
    static func copyStream(positions: some Collection<Int64>, records: some Collection<[UInt8]>) -> [UInt8] {
        var bytes: [UInt8] = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00]
        append(Int32(0), to: &bytes)
        append(Int32(0), to: &bytes)
        for (position, record) in zip(positions, records) {
            append(Int16(2), to: &bytes)
            append(Int32(8), to: &bytes)
            append(position, to: &bytes)
            append(Int32(record.count), to: &bytes)
            bytes += record
        }
        append(Int16(-1), to: &bytes)
        return bytes
    }

    static func int64(_ result: OpaquePointer, row: Int32, column: Int32) -> Int64 {
        var value: Int64 = 0
        withUnsafeMutableBytes(of: &value) { $0.copyMemory(from: UnsafeRawBufferPointer(start: PQgetvalue(result, row, column), count: 8)) }
        return Int64(bigEndian: value)
    }
}
