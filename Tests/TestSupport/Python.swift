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
