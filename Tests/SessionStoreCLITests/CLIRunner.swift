import EventLog
import Foundation
import TestSupport

/// Runs the built `sessionstore` binary in a scratch directory of its own.
struct CLIRunner {
    struct Outcome: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    let directory: URL

    static func binary() -> URL { BuiltProducts.url("sessionstore") }

    var storePath: String { directory.appendingPathComponent("sessions.store").path }

    /// The absolute path of `name` in this runner's directory: an in-process run does not start there.
    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
    var keyPath: String { directory.appendingPathComponent("sessions.key").path }

    /// Runs the binary to its end; a run longer than `limit` is killed (and fails its test by its output).
    @discardableResult
    func run(_ arguments: [String], environment: [String: String] = [:], input: Data? = nil,
             limit: Duration = .seconds(300)) throws -> Outcome {
        var inputURL: URL?
        if let input {
            inputURL = directory.appendingPathComponent(".stdin-\(UUID().uuidString)")
            try input.write(to: inputURL!)
        }
        defer { if let inputURL { try? FileManager.default.removeItem(at: inputURL) } }
        let outcome = try start(arguments, environment: environment, input: inputURL).wait(limit: limit)
        return Outcome(status: outcome.timedOut ? -1 : outcome.status, stdout: outcome.stdoutText, stderr: outcome.stderr)
    }

    /// Starts the binary; it is killed when the returned process is released.
    func start(_ arguments: [String], environment: [String: String] = [:], input: URL? = nil) throws -> ChildProcess {
        var merged = ProcessInfo.processInfo.environment
        merged["SESSIONSTORE_STORE"] = nil
        merged["SESSIONSTORE_KEY_FILE"] = nil
        merged.merge(environment) { $1 }
        return try ChildProcess(Self.binary(), arguments, environment: merged, directory: directory, input: input)
    }
}

func withCLI<R>(_ body: (CLIRunner) async throws -> R) async throws -> R {
    let directory = Scratch.url("sessionstore-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(CLIRunner(directory: directory))
}
