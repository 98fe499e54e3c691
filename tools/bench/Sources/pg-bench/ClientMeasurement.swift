import BenchSupport
import CBenchLibPQ
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// Bulk inserts and full reads of the same records through libpq and postgres-nio, each into a table
/// of its own: `(position bigint primary key, record bytea)`, as the backend's `events` table.
struct ClientMeasurement {
    let url: String
    let records: [[UInt8]]
    let batch = 1000

    func run() async throws {
        let libpq = try LibPQ(url: url)
        try libpq.execute("SET client_min_messages = warning")
        let nio = try await connectNIO()
        defer { Task { try? await nio.close() } }

        try insert("libpq", "unnest", libpq: libpq) { table, first, rows in
            let positions = PostgresBinary.array(oid: PostgresBinary.int8OID, (first..<first + rows.count).map { PostgresBinary.int8(Int64($0)) })
            let records = PostgresBinary.array(oid: PostgresBinary.byteaOID, rows)
            try libpq.execute("INSERT INTO \(table) SELECT * FROM unnest($1::int8[], $2::bytea[])", binary: [positions, records]) { _ in }
        }
        try insert("libpq", "copy-binary", libpq: libpq) { table, first, rows in
            try libpq.copy("COPY \(table) (position, record) FROM STDIN (FORMAT binary)",
                           data: PostgresBinary.copyStream(positions: (first..<first + rows.count).map(Int64.init), records: rows))
        }
        try await insertNIO("unnest", libpq: libpq, nio: nio) { table, first, rows in
            let positions = (first..<first + rows.count).map(Int64.init)
            let records = rows.map { ByteBuffer(bytes: $0) }
            try await nio.query("INSERT INTO \(unescaped: table) SELECT * FROM unnest(\(positions)::int8[], \(records)::bytea[])",
                                logger: logger)
        }
        try await insertNIO("copy-text", libpq: libpq, nio: nio) { table, first, rows in
            try await nio.copyFrom(table: table, columns: ["position", "record"], logger: logger) { writer in
                var buffer = ByteBuffer()
                for (offset, record) in rows.enumerated() {
                    buffer.writeString("\(first + offset)\t\\\\x")
                    buffer.writeString(hex(record))
                    buffer.writeString("\n")
                }
                try await writer.write(buffer)
            }
        }

        let table = "libpq_unnest"
        try measureRead("libpq", "single-row mode") {
            var seen = (events: 0, bytes: 0)
            try libpq.eachRow("SELECT position, record FROM \(table) ORDER BY position") { row in
                seen.events += 1
                seen.bytes += Int(PQgetlength(row, 0, 1))
            }
            return seen
        }
        try measureRead("libpq", "pages of 10,000") {
            var seen = (events: 0, bytes: 0)
            var next: Int64 = 0
            while true {
                let rows = try libpq.execute("SELECT position, record FROM \(table) WHERE position >= $1 ORDER BY position LIMIT 10000",
                                             binary: [PostgresBinary.int8(next)]) { result in
                    let rows = PQntuples(result)
                    for row in 0..<rows {
                        seen.bytes += Int(PQgetlength(result, row, 1))
                        next = PostgresBinary.int64(result, row: row, column: 0) + 1
                    }
                    return rows
                }
                seen.events += Int(rows)
                if rows < 10000 { return seen }
            }
        }
        try await measureReadNIO("postgres-nio", "for try await row") {
            var seen = (events: 0, bytes: 0)
            let rows = try await nio.query("SELECT position, record FROM \(unescaped: table) ORDER BY position", logger: logger)
            for try await (_, record) in rows.decode((Int64, ByteBuffer).self) {
                seen.events += 1
                seen.bytes += record.readableBytes
            }
            return seen
        }
        try await measureReadNIO("postgres-nio", "onRow callback") {
            let seen = Tally()
            try await nio.query("SELECT position, record FROM \(table) ORDER BY position", [] as [PostgresData]) { row in
                let (_, record) = try row.decode((Int64, ByteBuffer).self)
                seen.add(bytes: record.readableBytes)
            }.get()
            return (seen.events, seen.bytes)
        }
    }

    var logger: Logger {
        var logger = Logger(label: "pg-bench")
        logger.logLevel = .error
        return logger
    }

    func connectNIO() async throws -> PostgresConnection {
        guard let components = URLComponents(string: url), let host = components.host, let user = components.user else {
            throw LibPQ.Failure(description: "not a postgresql:// URL with a host and a user: \(url)")
        }
        let configuration = PostgresConnection.Configuration(host: host, port: components.port ?? 5432, username: user,
                                                             password: components.password,
                                                             database: String(components.path.dropFirst()), tls: .disable)
        return try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
    }

    func freshTable(_ name: String, libpq: LibPQ) throws {
        try libpq.execute("DROP TABLE IF EXISTS \(name)")
        try libpq.execute("CREATE TABLE \(name) (position bigint PRIMARY KEY, record bytea NOT NULL)")
        try libpq.execute("ALTER TABLE \(name) ALTER COLUMN record SET STORAGE EXTERNAL")
    }

    func tableName(_ client: String, _ method: String) -> String {
        (client == "libpq" ? "libpq_" : "nio_") + method.replacingOccurrences(of: "-", with: "_")
    }

    /// Inserts every record with libpq, `batch` rows per transaction, each transaction committed
    /// (synchronous_commit on).
    func insert(_ client: String, _ method: String, libpq: LibPQ, _ rows: (String, Int, ArraySlice<[UInt8]>) throws -> Void) throws {
        let table = tableName(client, method)
        try freshTable(table, libpq: libpq)
        let elapsed = try Report.time {
            for first in stride(from: 0, to: records.count, by: batch) {
                try libpq.execute("BEGIN")
                try rows(table, first, records[first..<min(records.count, first + batch)])
                try libpq.execute("COMMIT")
            }
        }
        emitInsert(client, method, elapsed)
    }

    func insertNIO(_ method: String, libpq: LibPQ, nio: PostgresConnection,
                   _ rows: (String, Int, ArraySlice<[UInt8]>) async throws -> Void) async throws {
        let table = tableName("postgres-nio", method)
        try freshTable(table, libpq: libpq)
        let clock = ContinuousClock()
        let started = clock.now
        for first in stride(from: 0, to: records.count, by: batch) {
            try await nio.query("BEGIN", logger: logger)
            try await rows(table, first, records[first..<min(records.count, first + batch)])
            try await nio.query("COMMIT", logger: logger)
        }
        emitInsert("postgres-nio", method, Report.seconds(clock.now - started))
    }

    func emitInsert(_ client: String, _ method: String, _ elapsed: Double) {
        Report.emit(["scenario": "insert", "client": client, "method": method, "events": records.count, "seconds": elapsed,
                     "per_second": Double(records.count) / elapsed])
    }

    func measureRead(_ client: String, _ method: String, _ read: () throws -> (events: Int, bytes: Int)) throws {
        var seen = (events: 0, bytes: 0)
        let elapsed = try Report.time { seen = try read() }
        try emitRead(client, method, seen, elapsed)
    }

    func measureReadNIO(_ client: String, _ method: String, _ read: () async throws -> (events: Int, bytes: Int)) async throws {
        let clock = ContinuousClock()
        let started = clock.now
        let seen = try await read()
        try emitRead(client, method, seen, Report.seconds(clock.now - started))
    }

    func emitRead(_ client: String, _ method: String, _ seen: (events: Int, bytes: Int), _ elapsed: Double) throws {
        guard seen.events == records.count else {
            throw LibPQ.Failure(description: "\(client) \(method) read \(seen.events) rows of \(records.count)")
        }
        Report.emit(["scenario": "scan", "client": client, "method": method, "events": seen.events, "bytes": seen.bytes,
                     "seconds": elapsed, "per_second": Double(seen.events) / elapsed])
    }

    func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8](repeating: 0, count: bytes.count * 2)
        for (index, byte) in bytes.enumerated() {
            text[2 * index] = digits[Int(byte >> 4)]
            text[2 * index + 1] = digits[Int(byte & 0x0F)]
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// What the onRow callback saw; rows arrive one at a time on the connection's event loop.
final class Tally: @unchecked Sendable {
    private(set) var events = 0
    private(set) var bytes = 0
    func add(bytes: Int) {
        events += 1
        self.bytes += bytes
    }
}
