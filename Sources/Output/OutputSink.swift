#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes on their way to standard output or a file, in a bounded buffer flushed as it fills.
///
/// A regular file is written beside its final path and renamed into place by ``close()``, so a command
/// that fails half-way leaves the earlier file (or none) rather than a truncated one. Anything else a
/// path can name (a device such as `/dev/null`, a FIFO, `/dev/stdout`) is written in place and never
/// renamed over (``OutputDestination``).
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
    private let ownsDescriptor: Bool
    /// Whether the bytes stay in ``buffer`` (``memory()``) instead of going to a descriptor.
    private var collects = false
    /// Where a ``forwarding(_:)`` sink hands each full buffer.
    private var deliver: (([UInt8]) throws -> Void)?
    private var closed = false

    private init(descriptor: Int32, path: String?, partialPath: String? = nil, ownsDescriptor: Bool) {
        self.descriptor = descriptor
        self.path = path
        self.partialPath = partialPath
        self.ownsDescriptor = ownsDescriptor
        buffer.reserveCapacity(Self.bufferCapacity + 4096)
    }

    /// Bytes kept in memory, for an answer that is sent whole (an HTTP response): read them from
    /// ``collected`` once written.
    public static func memory() -> OutputSink {
        let sink = OutputSink(descriptor: -1, path: nil, ownsDescriptor: false)
        sink.collects = true
        return sink
    }

    /// Bytes handed to `deliver` a buffer at a time, as they are written (a streamed HTTP answer):
    /// `deliver` may block to slow the writer down, and throws to stop it (the client went away).
    public static func forwarding(_ deliver: @escaping ([UInt8]) throws -> Void) -> OutputSink {
        let sink = OutputSink(descriptor: -1, path: nil, ownsDescriptor: false)
        sink.deliver = deliver
        return sink
    }

    /// What a ``memory()`` sink holds.
    public var collected: [UInt8] { buffer }

    /// Standard output.
    public static func standardOutput() -> OutputSink {
        OutputSink(descriptor: Console.current.output, path: nil, ownsDescriptor: false)
    }

    /// The output at `path`, or standard output when `path` is `nil` or `-`: a regular file is replaced
    /// when ``close()`` succeeds; a device, FIFO or descriptor name is written in place.
    /// - Throws: ``OutputError`` when the path cannot be opened for writing (a directory, a socket, a
    ///   missing directory, no permission).
    public static func file(_ path: String?) throws(OutputError) -> OutputSink {
        guard let path else { return standardOutput() }
        switch try OutputDestination.of(path) {
        case .descriptor(1):
            return standardOutput()
        case .descriptor(let named):
            let descriptor = dup(named == 2 ? Console.current.error : named)
            guard descriptor >= 0 else {
                throw OutputError(.cannotCreate, "cannot write \(path): \(SystemCalls.lastError)", path: path)
            }
            return OutputSink(descriptor: descriptor, path: path, ownsDescriptor: true)
        case .inPlace(let target, let truncate):
            let flags = O_WRONLY | O_CLOEXEC | (truncate ? O_CREAT | O_TRUNC : 0)
            let descriptor = open(target, flags, 0o644)
            guard descriptor >= 0 else {
                throw OutputError(.cannotCreate, "cannot write \(path): \(SystemCalls.lastError)", path: path)
            }
            return OutputSink(descriptor: descriptor, path: path, ownsDescriptor: true)
        case .replace(let target):
            let partial = target + ".partial-\(getpid())"
            let descriptor = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw OutputError(.cannotCreate, "cannot create \(path): \(SystemCalls.lastError)", path: path)
            }
            return OutputSink(descriptor: descriptor, path: target, partialPath: partial, ownsDescriptor: true)
        }
    }

    deinit {
        guard !closed, ownsDescriptor else { return }
        SystemCalls.close(descriptor)
        // Not closed: the command failed; leave no partial file behind.
        if let partialPath { unlink(partialPath) }
    }

    /// Appends `text` to the buffer.
    public func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.bufferCapacity { flushQuietly() }
    }

    /// Appends raw bytes (an encoded file, an archive), handing them to the system a buffer at a time.
    public func write(bytes: some Collection<UInt8>) throws(OutputError) {
        var rest = bytes[...]
        while !rest.isEmpty {
            let room = max(Self.bufferCapacity - buffer.count, 1)
            buffer.append(contentsOf: rest.prefix(room))
            rest = rest.dropFirst(room)
            try flushIfFull()
        }
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
        if collects { return }
        if let deliver {
            guard !buffer.isEmpty else { return }
            do {
                try deliver(buffer)
            } catch {
                let failure = OutputError(.writeFailed, "the output stopped: \(error)", path: nil, underlying: error)
                pendingError = failure
                throw failure
            }
            buffer.removeAll(keepingCapacity: true)
            return
        }
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

    /// Flushes and, for a regular file, makes it durable and moves it to its final path.
    public func close() throws(OutputError) {
        guard !closed else { return }
        try flush()
        closed = true
        guard ownsDescriptor else { return }
        defer { SystemCalls.close(descriptor) }
        guard let path, let partialPath else { return }
        guard fsync(descriptor) == 0, rename(partialPath, path) == 0 else {
            let reason = SystemCalls.lastError
            unlink(partialPath)
            throw OutputError(.writeFailed, "cannot write \(path): \(reason)", path: path)
        }
    }
}
