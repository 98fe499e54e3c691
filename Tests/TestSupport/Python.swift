import Foundation

/// Whether `python3` runs here and imports `modules` (comma-separated, as in an import statement):
/// the independent readers' tests run only where their Python modules are installed.
public func pythonCanImport(_ modules: String) -> Bool {
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    probe.arguments = ["python3", "-c", "import \(modules)"]
    probe.standardError = FileHandle.nullDevice
    guard (try? probe.run()) != nil else { return false }
    probe.waitUntilExit()
    return probe.terminationStatus == 0
}

/// What a python3 run printed and how it ended.
public struct PythonRun {
    public var status: Int32
    public var stdout: Data
    public var stderr: String
}

/// Runs `python3 ARGUMENTS`, with standard input read from `input` when given.
public func runPython(_ arguments: [String], input: URL? = nil) throws -> PythonRun {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3"] + arguments
    let stdout = Pipe(), stderr = Pipe()
    // Input comes from a file: a child that exits early cannot break a pipe under us.
    if let input { process.standardInput = try FileHandle(forReadingFrom: input) }
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    let errors = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return PythonRun(status: process.terminationStatus, stdout: output, stderr: errors)
}
