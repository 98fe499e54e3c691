import EventLog
import Foundation
import TestSupport

/// Runs the built `sessionstore` binary in a scratch directory of its own.
struct CLIRunner {
    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    let directory: URL

    static func binary() -> URL { BuiltProducts.url("sessionstore") }

    var storePath: String { directory.appendingPathComponent("sessions.store").path }
    var keyPath: String { directory.appendingPathComponent("sessions.key").path }

    @discardableResult
    func run(_ arguments: [String], environment: [String: String] = [:], input: Data? = nil) throws -> Outcome {
        let process = Process()
        process.executableURL = Self.binary()
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var merged = ProcessInfo.processInfo.environment
        merged["SESSIONSTORE_STORE"] = nil
        merged["SESSIONSTORE_KEY_FILE"] = nil
        merged.merge(environment) { $1 }
        process.environment = merged
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        if let input {
            let inputURL = directory.appendingPathComponent(".stdin-\(UUID().uuidString)")
            try input.write(to: inputURL)
            process.standardInput = try FileHandle(forReadingFrom: inputURL)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                       stderr: String(decoding: stderr, as: UTF8.self))
    }
}

func withCLI<R>(_ body: (CLIRunner) async throws -> R) async throws -> R {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sessionstore-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(CLIRunner(directory: directory))
}
