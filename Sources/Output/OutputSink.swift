#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes on their way to standard output or a file, in a bounded buffer flushed as it fills.
///
/// A file is written beside its final path and renamed into place by ``close()``, so a command that
/// fails half-way leaves the earlier file (or none) rather than a truncated one.
///
/// ```swift
/// let sink = try OutputSink.file("sessions.csv")
/// sink.write("hello\n")
/// try sink.close()
/// ```
public final class OutputSink {
    /// Bytes are handed to the system once this many are buffered.
    public static let bufferCapacity = 1 << 16

    /// The buffered bytes; writers append here and call ``flushIfFull()``.
    package var buffer: [UInt8] = []
    private let descriptor: Int32
    private let path: String?
    private let partialPath: String?
    private var closed = false

    private init(descriptor: Int32, path: String?, partialPath: String?) {
        self.descriptor = descriptor
        self.path = path
        self.partialPath = partialPath
        buffer.reserveCapacity(Self.bufferCapacity + 4096)
    }

    /// Standard output.
    public static func standardOutput() -> OutputSink {
        OutputSink(descriptor: 1, path: nil, partialPath: nil)
    }

    /// A file at `path` (replaced when ``close()`` succeeds), or standard output when `path` is `nil` or `-`.
    public static func file(_ path: String?) throws(OutputError) -> OutputSink {
        guard let path, path != "-" else { return standardOutput() }
        let partial = path + ".partial-\(getpid())"
        let descriptor = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw OutputError(.cannotCreate, "cannot create \(path): \(SystemCalls.lastError)", path: path)
        }
        return OutputSink(descriptor: descriptor, path: path, partialPath: partial)
    }

    deinit {
        // Not closed: the command failed; leave no partial file behind.
        if !closed, let partialPath {
            SystemCalls.close(descriptor)
            unlink(partialPath)
        }
    }

    /// Appends `text` to the buffer.
    public func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.bufferCapacity { flushQuietly() }
    }

    /// Hands the buffer to the system when it is full.
    package func flushIfFull() throws(OutputError) {
        if buffer.count >= Self.bufferCapacity { try flush() }
    }

    private var pendingError: OutputError?

    private func flushQuietly() {
        do { try flush() } catch { pendingError = error }
    }

    /// Writes out everything buffered.
    public func flush() throws(OutputError) {
        if let pendingError { throw pendingError }
        if descriptor == 1 { fflush(nil) }  // what print() buffered goes first
        var offset = 0
        while offset < buffer.count {
            let written = buffer.withUnsafeBytes { SystemCalls.write(descriptor, UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            if written < 0 {
                if errno == EINTR { continue }
                let error = OutputError(.writeFailed, "cannot write \(path ?? "standard output"): \(SystemCalls.lastError)",
                                        path: path)
                pendingError = error
                throw error
            }
            offset += written
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes and, for a file, makes it durable and moves it to its final path.
    public func close() throws(OutputError) {
        guard !closed else { return }
        try flush()
        closed = true
        guard let path, let partialPath else { return }
        defer { SystemCalls.close(descriptor) }
        guard fsync(descriptor) == 0, rename(partialPath, path) == 0 else {
            let reason = SystemCalls.lastError
            unlink(partialPath)
            throw OutputError(.writeFailed, "cannot write \(path): \(reason)", path: path)
        }
    }
}
