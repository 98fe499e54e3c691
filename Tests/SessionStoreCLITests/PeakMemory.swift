import Foundation
import TestSupport

#if os(Linux)
/// A `sessionstore` child's anonymous resident memory; nil once it is gone, or when its process id already
/// names another process (the suite starts thousands, and ids are reused).
func anonymousMemory(of pid: Int32) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    let lines = status.split(separator: "\n")
    func field(_ name: String) -> String? {
        lines.first { $0.hasPrefix(name + ":") }.map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) }
    }
    guard field("Name") == "sessionstore", field("PPid") == String(getpid()),
          let line = lines.first(where: { $0.hasPrefix("RssAnon:") }),
          let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else { return nil }
    return kilobytes * 1024
}

/// Samples the child's anonymous memory every millisecond until it exits (or `limit` passes); its peak and outcome.
func peakAnonymousMemory(of process: ChildProcess, limit: Duration = .seconds(300)) -> (peak: Int, outcome: ChildProcess.Outcome) {
    var peak = 0
    let deadline = ContinuousClock.now + limit
    while process.isRunning, ContinuousClock.now < deadline {
        if let now = anonymousMemory(of: process.processIdentifier) { peak = max(peak, now) }
        usleep(1000)
    }
    return (peak, process.wait(limit: .seconds(1)))
}
#endif
