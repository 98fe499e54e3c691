import CSQLCipher
import Foundation

/// Just enough of SQLite's C API for the SQLCipher peer: a connection, prepared statements, errors
/// that name the statement.
final class Connection: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private var handle: OpaquePointer?

    init(path: String) throws {
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else {
            defer { sqlite3_close(handle) }
            throw Failure(description: "cannot open \(path): \(String(cString: sqlite3_errmsg(handle)))")
        }
    }

    deinit { sqlite3_close(handle) }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw failure(sql) }
    }

    func prepare(_ sql: String) throws -> Statement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw failure(sql) }
        return Statement(statement: statement, connection: self, sql: sql)
    }

    /// The first column of the first row of `sql`, as text.
    func text(_ sql: String) throws -> String? {
        let statement = try prepare(sql)
        guard try statement.step(), let text = sqlite3_column_text(statement.statement, 0) else { return nil }
        return String(cString: text)
    }

    fileprivate func failure(_ sql: String) -> Failure {
        Failure(description: "\(sql.prefix(60)): \(String(cString: sqlite3_errmsg(handle)))")
    }

    final class Statement {
        let statement: OpaquePointer
        let connection: Connection
        let sql: String

        init(statement: OpaquePointer, connection: Connection, sql: String) {
            self.statement = statement
            self.connection = connection
            self.sql = sql
        }

        deinit { sqlite3_finalize(statement) }

        func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(statement, index, value) }

        func bind(_ index: Int32, _ bytes: [UInt8]) {
            // SQLITE_TRANSIENT: SQLite copies the bytes.
            sqlite3_bind_blob(statement, index, bytes, Int32(bytes.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        }

        func bind(_ index: Int32, _ text: String) {
            sqlite3_bind_text(statement, index, text, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        }

        /// One step: true when a row is ready, false when done.
        func step() throws -> Bool {
            switch sqlite3_step(statement) {
            case SQLITE_ROW: return true
            case SQLITE_DONE: return false
            default: throw connection.failure(sql)
            }
        }

        func run() throws {
            defer { reset() }
            while try step() {}
        }

        func reset() {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }

        func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }
        func byteCount(_ column: Int32) -> Int {
            _ = sqlite3_column_blob(statement, column)
            return Int(sqlite3_column_bytes(statement, column))
        }
    }
}
