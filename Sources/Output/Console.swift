#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Where a command's standard streams and environment variables are: the process's, or, for a
/// command run inside a test process, descriptors and variables of the caller's, for one task and the
/// tasks it starts (`Console.$current.withValue(…) { … }`). Every byte the CLI prints goes through it,
/// so that tests can run commands in-process, in parallel, each with its own output.
public struct Console: Sendable {
    /// Standard output, error and input.
    public var output: Int32
    public var error: Int32
    public var input: Int32
    /// The environment variables commands see; nil: the process's.
    public var environment: [String: String]?

    public init(output: Int32 = 1, error: Int32 = 2, input: Int32 = 0, environment: [String: String]? = nil) {
        self.output = output
        self.error = error
        self.input = input
        self.environment = environment
    }

    /// The console of the running task: the process's unless a caller set one.
    @TaskLocal public static var current = Console()

    /// Writes `text` to standard output, at once.
    public static func out(_ text: String) { write(text, to: current.output) }

    /// Writes `text` and a newline to standard output, at once (what `print` does, unbuffered).
    public static func line(_ text: String) { out(text + "\n") }

    /// Writes `text` to standard error, at once.
    public static func err(_ text: String) { write(text, to: current.error) }

    /// The environment variable `name`.
    public static func variable(_ name: String) -> String? {
        (current.environment ?? ProcessInfo.processInfo.environment)[name]
    }

    /// Standard input, read as a file handle (not closed with it).
    public static var input: FileHandle { FileHandle(fileDescriptor: current.input, closeOnDealloc: false) }

    private static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 { offset += written } else if written < 0, errno == EINTR { continue } else { return }
            }
        }
    }
}
