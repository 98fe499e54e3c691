import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Scratch space for tests. Every path is under one folder per test process,
/// `$TMPDIR/sessionstore-tests/PID`: tests remove what they make, and a run that crashed before its
/// cleanup leaves a folder the next run removes (its process is gone).
public enum Scratch {
    /// A path for `name` in this run's folder (not created).
    public static func url(_ name: String) -> URL { runFolder.appendingPathComponent(name) }

    static let runFolder: URL = {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("sessionstore-tests")
        try? FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? [] {
            guard let pid = Int32(name), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: parent.appendingPathComponent(name))
        }
        let folder = parent.appendingPathComponent(String(getpid()))
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }()
}

/// Set by `tools/test --sanitize`: everything runs under AddressSanitizer, several times slower, and
/// memory is mostly its shadow. Long tests get longer time limits; memory tests are skipped.
public let runningSanitized = ProcessInfo.processInfo.environment["SESSIONSTORE_SANITIZED"] != nil
