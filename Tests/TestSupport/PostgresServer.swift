import EventLogPostgres
import Foundation
import Testing

/// A private PostgreSQL server in a temporary directory on a free loopback port, started and stopped by
/// tools/postgres/server (which installs Debian's postgresql where it is missing, and runs the server as
/// `postgres` when the tests run as root).
public final class PostgresServer: Sendable {
    /// The server a suite marked ``PostgresServer/suite`` runs with.
    @TaskLocal public static var current: PostgresServer?

    public let url: String
    private let directory: URL

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("tools/postgres/server")

    public static func start() throws -> PostgresServer {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sessionstore-pg-\(UUID().uuidString)")
        let outcome = try ChildProcess.run(script, ["start", directory.path], limit: .seconds(300))
        guard outcome.status == 0, !outcome.signalled, let url = outcome.stdoutText.split(separator: "\n").last else {
            _ = try? ChildProcess.run(script, ["stop", directory.path])
            throw ServerFailure(description: "tools/postgres/server start failed (status \(outcome.status)): \(outcome.stderr)")
        }
        return PostgresServer(url: String(url), directory: directory)
    }

    private init(url: String, directory: URL) {
        self.url = url
        self.directory = directory
    }

    /// The server's loopback port.
    public var port: Int { Int(URLComponents(string: url)?.port ?? 0) }

    /// A hot standby of this server (pg_basebackup -R), started, named `standby`: with
    /// `synchronous_standby_names = 'standby'` on this server, its commits wait for the standby's.
    public func standby() throws -> PostgresServer {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sessionstore-pg-\(UUID().uuidString)")
        let outcome = try ChildProcess.run(Self.script, ["standby", directory.path, self.directory.path], limit: .seconds(300))
        guard outcome.status == 0, let url = outcome.stdoutText.split(separator: "\n").last else {
            _ = try? ChildProcess.run(Self.script, ["stop", directory.path])
            throw ServerFailure(description: "tools/postgres/server standby failed (status \(outcome.status)): \(outcome.stderr)")
        }
        return PostgresServer(url: String(url), directory: directory)
    }

    /// kill -9 of the server and all its processes, as when its machine dies.
    public func crash() throws {
        try runScript("crash")
    }

    /// Starts this server again (after ``crash()``: it recovers from its write-ahead log), on a new port.
    public func restart() throws -> PostgresServer {
        let outcome = try ChildProcess.run(Self.script, ["start", directory.path], limit: .seconds(300))
        guard outcome.status == 0, let url = outcome.stdoutText.split(separator: "\n").last else {
            throw ServerFailure(description: "tools/postgres/server start failed (status \(outcome.status)): \(outcome.stderr)")
        }
        return PostgresServer(url: String(url), directory: directory)
    }

    /// Makes this standby the primary.
    public func promote() throws {
        try runScript("promote")
    }

    /// Runs SQL on the server's `postgres` database; returns its rows as `psql -qAt` prints them.
    @discardableResult
    public func sql(_ sql: String) throws -> String {
        try Self.sql(sql, on: url)
    }

    /// Runs SQL on the database at `url`; returns its rows as `psql -qAt` prints them.
    @discardableResult
    public static func sql(_ sql: String, on url: String) throws -> String {
        try PostgresSQL.run(sql, on: url)
    }

    /// Returns once a standby of this server replicates synchronously.
    public func waitForSynchronousStandby() async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while try sql("SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'") != "1" {
            guard ContinuousClock.now < deadline else { throw ServerFailure(description: "the standby never became synchronous") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    private func runScript(_ command: String) throws {
        let outcome = try ChildProcess.run(Self.script, [command, directory.path], limit: .seconds(120))
        guard outcome.status == 0 else { throw ServerFailure(description: "tools/postgres/server \(command) failed: \(outcome.stderr)") }
    }

    public func stop() {
        _ = try? ChildProcess.run(Self.script, ["stop", directory.path], limit: .seconds(120))
        try? FileManager.default.removeItem(at: directory)
    }

    /// A new, empty database on this server, for one test.
    public func freshDatabase() throws -> String {
        try Self.freshDatabase(on: url)
    }

    /// A new, empty database on the server at `serverURL`.
    public static func freshDatabase(on serverURL: String) throws -> String {
        let name = "t\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())"
        try sql("CREATE DATABASE \(name)", on: serverURL)
        return String(serverURL[..<serverURL.lastIndex(of: "/")!]) + "/\(name)"
    }

    /// A loopback port nothing listens on (bound, then released): an unreachable server.
    public static func closedLoopbackPort() throws -> Int {
        let outcome = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c",
            "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"])
        guard let port = Int(outcome.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw ServerFailure(description: "no free loopback port: \(outcome.stderr)")
        }
        return port
    }

    public struct ServerFailure: Error, CustomStringConvertible {
        public let description: String
    }

    /// A suite trait: one server for the whole suite, stopped after it even when a test fails.
    public static var suite: Scope { Scope() }

    public struct Scope: SuiteTrait, TestScoping {
        public func provideScope(for test: Test, testCase: Test.Case?,
                                 performing function: @Sendable () async throws -> Void) async throws {
            let server = try PostgresServer.start()
            defer { server.stop() }
            try await PostgresServer.$current.withValue(server) { try await function() }
        }
    }
}
