internal import CLibPQ

/// SQL on a PostgreSQL server through libpq, in the test process: a `psql` process for each of the
/// hundreds of databases the tests create cost more than the server's work.
enum PostgresSQL {
    /// Runs `sql` (several statements may be separated by semicolons) on the database at `url`; returns
    /// the last statement's rows as `psql -qAt` prints them: fields joined by `|`, rows by newlines.
    static func run(_ sql: String, on url: String) throws -> String {
        guard let connection = PQconnectdb(url) else { throw PostgresServer.ServerFailure(description: "libpq could not allocate a connection") }
        defer { PQfinish(connection) }
        guard PQstatus(connection) == CONNECTION_OK else {
            throw PostgresServer.ServerFailure(description: "cannot connect to \(url): \(String(cString: PQerrorMessage(connection)))")
        }
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw PostgresServer.ServerFailure(description: "\(sql) failed: \(String(cString: PQresultErrorMessage(result)))")
        }
        return (0..<PQntuples(result)).map { row in
            (0..<PQnfields(result)).map { String(cString: PQgetvalue(result, row, $0)) }.joined(separator: "|")
        }.joined(separator: "\n")
    }
}
