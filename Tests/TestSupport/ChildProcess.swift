import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process a test starts: its output goes to files (a grandchild holding a pipe can never
/// hang the test), and its whole process group is killed when the test is done with it, on every
/// exit path (`deinit`), or when it outlives its time limit.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: `process` is configured before `run()` and read-only afterwards; `exited` is a semaphore.
    public struct Outcome: Sendable {
        public var status: Int32
        /// Killed by a signal (SIGKILL from ``kill()`` or the time limit).
        public var signalled: Bool
        public var timedOut: Bool
        public var stdout: Data
        public var stderr: String
        public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    }

    private let process = Process()
    private let exited = DispatchSemaphore(value: 0)
    private let outputDirectory: URL
    private var timedOut = false
    public var processIdentifier: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }

    /// Starts `executable`; standard input comes from `input` (a file), else from /dev/null.
    public init(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                directory: URL? = nil, input: URL? = nil) throws {
        outputDirectory = Scratch.url("child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: outputDirectory, withIntermediateDirectories: true)
        for name in ["out", "err"] {
            _ = FileManager.default.createFile(atPath: outputDirectory.appendingPathComponent(name).path, contents: nil)
        }
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = try input.map { try FileHandle(forReadingFrom: $0) } ?? FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: outputDirectory.appendingPathComponent("out"))
        process.standardError = try FileHandle(forWritingTo: outputDirectory.appendingPathComponent("err"))
        let exited = self.exited
        process.terminationHandler = { _ in exited.signal() }
        do {
            try process.run()  // Foundation starts the child in a process group of its own
        } catch {
            try? FileManager.default.removeItem(at: outputDirectory)
            throw error
        }
    }

    deinit {
        if process.isRunning { kill() }
        try? FileManager.default.removeItem(at: outputDirectory)
    }

    /// What the child has written to standard output so far.
    public var outputSoFar: String {
        String(decoding: (try? Data(contentsOf: outputDirectory.appendingPathComponent("out"))) ?? Data(), as: UTF8.self)
    }

    /// Sends `signal` to the child alone (SIGTERM: ask it to stop).
    public func send(_ signal: Int32) {
        if process.isRunning { Foundation.kill(process.processIdentifier, signal) }
    }

    /// SIGKILL to the child's process group, then waits for it.
    public func kill() {
        if process.isRunning { killGroup(process.processIdentifier) }
        process.waitUntilExit()
    }

    /// Waits for the child to exit, killing it after `limit`; then what it printed.
    public func wait(limit: Duration = .seconds(600)) -> Outcome {
        let nanoseconds = limit.components.seconds * 1_000_000_000 + limit.components.attoseconds / 1_000_000_000
        if exited.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .timedOut {
            timedOut = true
            kill()
        } else {
            exited.signal()  // a later wait returns at once
        }
        process.waitUntilExit()
        let stdout = (try? Data(contentsOf: outputDirectory.appendingPathComponent("out"))) ?? Data()
        let stderr = (try? Data(contentsOf: outputDirectory.appendingPathComponent("err"))) ?? Data()
        return Outcome(status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal,
                       timedOut: timedOut, stdout: stdout,
                       stderr: String(decoding: stderr, as: UTF8.self) + (timedOut ? "\n[killed after \(limit)]" : ""))
    }

    /// Runs `executable` to the end (or its time limit) and returns what it printed.
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                           directory: URL? = nil, input: URL? = nil, limit: Duration = .seconds(600)) throws -> Outcome {
        try ChildProcess(executable, arguments, environment: environment, directory: directory, input: input).wait(limit: limit)
    }
}

/// SIGKILL to the process group `leader` leads, and to `leader` itself (in case it left the group).
private func killGroup(_ leader: pid_t) {
    kill(-leader, SIGKILL)
    kill(leader, SIGKILL)
}
