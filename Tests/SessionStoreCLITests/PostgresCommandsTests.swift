import Foundation
import TestSupport
import Testing

/// The main journeys with `--store postgresql://…`: the same commands, the same answers as on LMDB.
@Suite(PostgresServer.suite) struct PostgresCommandsTests {
    @Test func theDemoOnAPostgreSQLStoreReplaysToTheSameDigestAsOnLMDBAndVerifies() async throws {
        let server = try #require(PostgresServer.current)
        try await withCLI { cli in
            let url = try server.freshDatabase()
            let onPostgres = try cli.run(["demo"], environment: ["SESSIONSTORE_STORE": url])
            #expect(onPostgres.status == 0, "\(onPostgres.stderr)")
            #expect(onPostgres.stdout.contains("Recorded 6 fixture sessions"))
            let onLMDB = try cli.run(["demo", "--store", cli.directory.appendingPathComponent("lmdb.store").path,
                                      "--key-file", cli.directory.appendingPathComponent("lmdb.key").path])
            #expect(onLMDB.status == 0, "\(onLMDB.stderr)")
            let digest = { (output: String) in String(output.split(separator: "\n").last ?? "") }
            #expect(digest(onPostgres.stdout) == digest(onLMDB.stdout), "a replay digest depends on the events, not on where they are kept")

            let again = try cli.run(["demo", "--store", url])
            #expect(again.stdout.contains("0 events appended (all were stored already)"))
            let sessions = try cli.run(["sessions", "--store", url, "--format", "csv"])
            #expect(sessions.stdout.split(separator: "\r\n").count == 7)
            let verify = try cli.run(["verify", "--store", url])
            #expect(verify.status == 0, "\(verify.stderr)")
            #expect(verify.stdout.contains("intact: 1343 records checked"))
            let stats = try cli.run(["stats", "--store", url])
            #expect(stats.stdout.contains("1,343"))
        }
    }

    @Test func anUnreachableServerAWrongKeyAndAnEmptyDatabaseEachExitWithTheirCode() async throws {
        let server = try #require(PostgresServer.current)
        try await withCLI { cli in
            let url = try server.freshDatabase()
            let empty = try cli.run(["sessions", "--store", url])
            #expect(empty.status == 65)
            #expect(empty.stderr.contains("there is no store in the PostgreSQL database") && empty.stderr.contains("sessionstore init"))

            #expect(try cli.run(["init", "--store", url]).status == 0)
            let otherKey = cli.directory.appendingPathComponent("other.key").path
            #expect(try cli.run(["init", "--store", cli.directory.appendingPathComponent("other.store").path, "--key-file", otherKey]).status == 0)
            let wrongKey = try cli.run(["sessions", "--store", url, "--key-file", otherKey])
            #expect(wrongKey.status == 77, "\(wrongKey.stderr)")

            let port = try PostgresServer.closedLoopbackPort()
            let unreachable = try cli.run(["sessions", "--store", "postgresql://postgres:pw@127.0.0.1:\(port)/x?connect_timeout=5"])
            #expect(unreachable.status == 69)
            #expect(unreachable.stderr.contains("cannot reach the PostgreSQL server of postgresql://postgres:***@127.0.0.1"))
            #expect(!unreachable.stderr.contains(":pw@"))
        }
    }
}
