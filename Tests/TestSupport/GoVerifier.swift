import Foundation

/// Go's checksum-database packages (golang.org/x/mod/sumdb/note and sumdb/tlog), as Debian's
/// golang-go and golang-golang-x-mod-dev install them: a verifier of our proofs written by others.
public enum GoVerifier {
    /// Where Debian puts the Go sources of golang.org/x/mod (a GOPATH).
    public static let goPath = "/usr/share/gocode"

    /// Whether `go` runs and finds golang.org/x/mod/sumdb.
    public static var isInstalled: Bool {
        guard FileManager.default.fileExists(atPath: goPath + "/src/golang.org/x/mod/sumdb/tlog/tlog.go") else { return false }
        let probe = try? ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["go", "version"], limit: .seconds(60))
        return probe?.status == 0
    }

    /// Whether a test that needs it runs: where it is installed, and always in CI, where the test must
    /// then fail on its absence rather than be skipped (tools/test installs it).
    public static var testEnabled: Bool { ProcessInfo.processInfo.environment["CI"] != nil || isInstalled }

    /// `go run` of the Go program at `source` with `arguments`, offline (GOPATH mode, no module download).
    public static func run(_ source: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["GO111MODULE"] = "off"
        environment["GOPATH"] = goPath
        environment["GOFLAGS"] = nil
        if environment["HOME"] == nil, environment["GOCACHE"] == nil {
            environment["GOCACHE"] = Scratch.url("go-build-cache").path
        }
        let outcome = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["go", "run", source] + arguments,
                                           environment: environment, limit: .seconds(600))
        return (outcome.timedOut ? -1 : outcome.status, String(decoding: outcome.stdout, as: UTF8.self), outcome.stderr)
    }
}

/// A Go program of this repository (a module that needs only Go's standard library), built once per
/// test process, offline.
public enum GoProgram {
    /// Whether `go` runs here; in CI, where tools/test installs it, a test that needs it runs regardless.
    public static var testEnabled: Bool {
        ProcessInfo.processInfo.environment["CI"] != nil
            || (try? ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["go", "version"], limit: .seconds(60)))?.status == 0
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var built: [String: URL] = [:]

    /// The executable built from the module at `directory` (relative to the repository).
    public static func build(_ directory: String) throws -> URL {
        lock.lock()
        defer { lock.unlock() }
        if let url = built[directory] { return url }
        let source = RepositoryFixtures.root.deletingLastPathComponent().appendingPathComponent(directory)
        let output = Scratch.url("go-\(UUID().uuidString)")
        var environment = ProcessInfo.processInfo.environment
        environment["GO111MODULE"] = "on"
        environment["GOPROXY"] = "off"
        environment["GOFLAGS"] = "-mod=mod"
        if environment["HOME"] == nil, environment["GOCACHE"] == nil {
            environment["GOCACHE"] = Scratch.url("go-build-cache").path
        }
        let outcome = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["go", "build", "-o", output.path, "."],
                                           environment: environment, directory: source, limit: .seconds(600))
        guard outcome.status == 0 else { throw GoBuildFailure(description: "go build \(directory): \(outcome.stderr)") }
        built[directory] = output
        return output
    }

    struct GoBuildFailure: Error, CustomStringConvertible {
        var description: String
    }
}
