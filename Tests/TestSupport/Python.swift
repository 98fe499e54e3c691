import Foundation
import Synchronization
import Testing

/// Whether `python3` runs here and imports `modules` (comma-separated, as in an import statement):
/// the independent readers' tests run only where their Python modules are installed.
public func pythonCanImport(_ modules: String) -> Bool {
    if let known = importable.withLock({ $0[modules] }) { return known }
    let probe = try? ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", "import \(modules)"], limit: .seconds(60))
    let found = probe?.status == 0 && probe?.signalled == false
    importable.withLock { $0[modules] = found }
    return found
}

/// What ``pythonCanImport(_:)`` found, by module list: importing pandas alone costs half a second of a core,
/// and a dozen tests ask.
private let importable = Mutex<[String: Bool]>([:])

/// Whether a test that needs the Python `modules` runs: where they import, and always in CI (the
/// `CI` variable set, as .ci/run does), where the test must then fail on the missing module rather
/// than be skipped. Pair it with `try #require(pythonCanImport(modules))` in the test.
public func pythonTestEnabled(_ modules: String) -> Bool {
    ProcessInfo.processInfo.environment["CI"] != nil || pythonCanImport(modules)
}

/// Fails the test, saying what is missing, when python3 cannot import `modules`.
public func requirePython(_ modules: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    try #require(pythonCanImport(modules), "python3 needs \(modules) (tools/test installs them)", sourceLocation: sourceLocation)
}

/// What a python3 run printed and how it ended.
public struct PythonRun {
    public var status: Int32
    public var stdout: Data
    public var stderr: String
}

/// Runs `python3 ARGUMENTS`, with standard input read from `input` when given (a file: a child that
/// exits early cannot break a pipe under us); killed after `limit`.
public func runPython(_ arguments: [String], input: URL? = nil, environment: [String: String] = [:],
                      limit: Duration = .seconds(300)) throws -> PythonRun {
    let settings = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    let outcome = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), settings + ["python3"] + arguments, input: input, limit: limit)
    return PythonRun(status: outcome.timedOut ? -1 : outcome.status, stdout: outcome.stdout, stderr: outcome.stderr)
}
