import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process a test starts: its output goes to files (a grandchild holding a pipe can never
/// hang the test), and its whole process group is killed when the test is done with it, on every
/// exit path (`deinit`), or when it outlives its time limit.
///
/// Started with `posix_spawn`, not Foundation's `Process`: this toolchain's `Process.run()` reads
/// `/proc/self/fd` past the end of glibc's buffer now and then and kills the test process
/// (swift-corelibs-foundation#5472, fixed upstream after Swift 6.3.1).
public final class ChildProcess: Sendable {
    public struct Outcome: Sendable {
        public var status: Int32
        /// Killed by a signal (SIGKILL from ``kill()`` or the time limit); `status` is the signal's number.
        public var signalled: Bool
        public var timedOut: Bool
        public var stdout: Data
        public var stderr: String
        public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    }

    public let processIdentifier: pid_t
    private let outputDirectory: URL
    private let ending = ChildExit()
    private let timedOut = Atomic<Bool>(false)
    public var isRunning: Bool { ending.status.withLock { $0 == nil } }

    /// Starts `executable`; standard input comes from `input` (a file), else from /dev/null.
    public init(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                directory: URL? = nil, input: URL? = nil) throws {
        outputDirectory = Scratch.url("child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: outputDirectory, withIntermediateDirectories: true)
        do {
            processIdentifier = try spawn(executable.path, arguments, environment: environment, directory: directory?.path,
                                          input: input?.path ?? "/dev/null",
                                          output: outputDirectory.appendingPathComponent("out").path,
                                          errors: outputDirectory.appendingPathComponent("err").path)
        } catch {
            try? FileManager.default.removeItem(at: outputDirectory)
            throw error
        }
        let pid = processIdentifier, ending = self.ending
        Thread.detachNewThread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 {
                guard errno == EINTR else { status = 255 << 8; break }
            }
            ending.status.withLock { $0 = status }
            ending.happened.signal()
        }
    }

    deinit {
        if isRunning { kill() }
        try? FileManager.default.removeItem(at: outputDirectory)
    }

    /// What the child has written to standard output so far.
    public var outputSoFar: String {
        String(decoding: (try? Data(contentsOf: outputDirectory.appendingPathComponent("out"))) ?? Data(), as: UTF8.self)
    }

    /// Sends `signal` to the child alone (SIGTERM: ask it to stop).
    public func send(_ signal: Int32) {
        if isRunning { Foundation.kill(processIdentifier, signal) }
    }

    /// SIGKILL to the child's process group, then waits for it.
    public func kill() {
        if isRunning { killGroup(processIdentifier) }
        waitUntilExit()
    }

    /// Waits for the child to exit, killing it after `limit`; then what it printed.
    public func wait(limit: Duration = .seconds(600)) -> Outcome {
        let nanoseconds = limit.components.seconds * 1_000_000_000 + limit.components.attoseconds / 1_000_000_000
        if ending.happened.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .timedOut {
            timedOut.store(true, ordering: .relaxed)
            kill()
        } else {
            ending.happened.signal()  // a later wait returns at once
        }
        let status = ending.status.withLock { $0 } ?? 0
        let signal = status & 0x7f
        let timedOut = timedOut.load(ordering: .relaxed)
        let stdout = (try? Data(contentsOf: outputDirectory.appendingPathComponent("out"))) ?? Data()
        let stderr = (try? Data(contentsOf: outputDirectory.appendingPathComponent("err"))) ?? Data()
        return Outcome(status: signal == 0 ? (status >> 8) & 0xff : signal, signalled: signal != 0, timedOut: timedOut,
                       stdout: stdout,
                       stderr: String(decoding: stderr, as: UTF8.self) + (timedOut ? "\n[killed after \(limit)]" : ""))
    }

    /// Runs `executable` to the end (or its time limit) and returns what it printed.
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                           directory: URL? = nil, input: URL? = nil, limit: Duration = .seconds(600)) throws -> Outcome {
        try ChildProcess(executable, arguments, environment: environment, directory: directory, input: input).wait(limit: limit)
    }

    private func waitUntilExit() {
        ending.happened.wait()
        ending.happened.signal()
    }
}

/// A child's exit: its wait status once a thread of its own has reaped it.
private final class ChildExit: Sendable {
    let status = Mutex<Int32?>(nil)
    let happened = DispatchSemaphore(value: 0)
}

public struct SpawnError: Error, CustomStringConvertible {
    public var description: String
}

/// Starts `path` in a process group of its own, with every signal's default action and none blocked, its standard
/// streams opened on the files named and no other descriptor of ours (a pipe a test holds must see its end).
private func spawn(_ path: String, _ arguments: [String], environment: [String: String]?, directory: String?,
                   input: String, output: String, errors: String) throws -> pid_t {
    #if canImport(Darwin)
    var actions: posix_spawn_file_actions_t? = nil
    var attributes: posix_spawnattr_t? = nil
    #else
    var actions = posix_spawn_file_actions_t()
    var attributes = posix_spawnattr_t()
    #endif
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, input, O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    if let directory {
        #if canImport(Darwin)
        posix_spawn_file_actions_addchdir_np(&actions, directory)
        #else
        _ = try glibcExtension("posix_spawn_file_actions_addchdir_np", as: AddDirectoryChange.self)(&actions, directory)
        #endif
    }
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var flags = Int32(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
    #if canImport(Darwin)
    flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
    #else
    _ = try glibcExtension("posix_spawn_file_actions_addclosefrom_np", as: AddCloseFrom.self)(&actions, 3)
    #endif
    posix_spawnattr_setflags(&attributes, Int16(flags))
    posix_spawnattr_setpgroup(&attributes, 0)
    var signals = sigset_t()
    sigfillset(&signals)
    posix_spawnattr_setsigdefault(&attributes, &signals)
    sigemptyset(&signals)
    posix_spawnattr_setsigmask(&attributes, &signals)

    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    let variables = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (argv + variables).forEach { free($0) } }
    var pid: pid_t = 0
    let failure = posix_spawn(&pid, path, &actions, &attributes, argv, variables)
    guard failure == 0 else {
        throw SpawnError(description: "cannot start \(path): \(String(cString: strerror(failure)))")
    }
    return pid
}

#if !canImport(Darwin)
private typealias AddDirectoryChange = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

/// One of glibc's extensions to `posix_spawn` (2.29, 2.34), which Swift's Glibc module leaves out: they are declared
/// for `_GNU_SOURCE` only.
private func glibcExtension<Function>(_ name: String, as type: Function.Type) throws -> Function {
    guard let address = dlsym(dlopen(nil, RTLD_NOW), name) else {
        throw SpawnError(description: "this C library has no \(name) (glibc 2.34 or later has)")
    }
    return unsafeBitCast(address, to: type)
}
#endif

/// SIGKILL to the process group `leader` leads, and to `leader` itself (in case it left the group).
private func killGroup(_ leader: pid_t) {
    kill(-leader, SIGKILL)
    kill(leader, SIGKILL)
}
