import ArgumentParser
import Foundation
import Output
@testable import sessionstore
import TestSupport

extension CLIRunner {
    /// Runs `sessionstore ARGUMENTS` inside the test process, as swift-argument-parser's own test helpers
    /// parse commands: no process is started, and its standard output, error and input are files of
    /// this run (``Console``), so runs in parallel keep their output apart. The store and key file are this
    /// runner's (absolute paths through the environment); other paths must be absolute, since the
    /// working directory is the process's. For commands that need a process of their own (signals,
    /// crashes, memory, another user, a working directory) use ``run(_:environment:input:limit:)``.
    @discardableResult
    func runInProcess(_ arguments: [String], environment: [String: String] = [:], input: Data? = nil) async throws -> Outcome {
        let scratch = directory.appendingPathComponent(".in-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        func open(_ name: String, _ contents: Data? = nil) throws -> Int32 {
            let path = scratch.appendingPathComponent(name).path
            if let contents { try contents.write(to: URL(fileURLWithPath: path)) }
            let descriptor = Glibc.open(path, contents == nil ? (O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC) : (O_RDONLY | O_CLOEXEC), 0o600)
            guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
            return descriptor
        }
        let (output, error, standardInput) = (try open("out"), try open("err"), try open("in", input ?? Data()))
        defer { [output, error, standardInput].forEach { close($0) } }
        var variables = ProcessInfo.processInfo.environment
        variables["SESSIONSTORE_STORE"] = storePath
        variables["SESSIONSTORE_KEY_FILE"] = keyPath
        variables.merge(environment) { $1 }
        let console = Console(output: output, error: error, input: standardInput, environment: variables)
        let status: Int32 = await Console.$current.withValue(console) {
            do {
                var command = try SessionStoreCommand.parseAsRoot(arguments)
                if var asynchronous = command as? any AsyncParsableCommand {
                    try await asynchronous.run()
                } else {
                    try command.run()
                }
                return 0
            } catch {
                let message = SessionStoreCommand.fullMessage(for: error)
                if !message.isEmpty { Console.err(message + "\n") }
                return SessionStoreCommand.exitCode(for: error).rawValue
            }
        }
        let read = { (name: String) in String(decoding: (try? Data(contentsOf: scratch.appendingPathComponent(name))) ?? Data(), as: UTF8.self) }
        return Outcome(status: status, stdout: read("out"), stderr: read("err"))
    }
}
