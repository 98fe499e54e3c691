import Foundation
import Hummingbird
import Ingest

/// A request body as it arrives: kept in memory while it is small (most requests carry a few events),
/// written to a file of its own once it grows past ``SessionIngest/concurrentInputLimit``, so that a
/// body of any size is checked and appended without being held in memory; a body that never arrives
/// whole appends nothing.
enum BodySpool {
    /// The body, in memory or in a new file in `directory` (the caller removes it with ``discard(_:)``):
    /// 413 when it passes `maximumBytes` or one of its lines passes `maximumLineBytes`, 408 when it is
    /// not whole within `timeout`; no file is left behind when it fails.
    static func read(_ body: RequestBody, in directory: String, maximumBytes: Int, maximumLineBytes: Int,
                     timeout: Duration) async throws -> IngestSource {
        let spooled = Spooled(directory: directory)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    var total = 0, line = 1, lineBytes = 0
                    for try await buffer in body {
                        total += buffer.readableBytes
                        guard total <= maximumBytes else {
                            throw Problem(.bodyTooLarge, detail: "the body passes \(maximumBytes) bytes; send the events in several requests")
                        }
                        buffer.withUnsafeReadableBytes { bytes in
                            for byte in bytes {
                                if byte == UInt8(ascii: "\n") { line += 1; lineBytes = 0 } else { lineBytes += 1 }
                                if lineBytes > maximumLineBytes { break }
                            }
                        }
                        guard lineBytes <= maximumLineBytes else {
                            throw Problem(.lineTooLarge, detail: "line \(line) passes \(maximumLineBytes) bytes; split the audio into smaller chunks")
                        }
                        try spooled.append(buffer.readableBytesView)
                    }
                    try Task.checkCancellation()  // a body whose reading was cancelled may have ended early
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw Problem(.bodyTimeout, detail: "the body was not whole within \(timeout.components.seconds) seconds")
                }
                try await group.next()
                group.cancelAll()
            }
            return try spooled.finish()
        } catch {
            if let file = spooled.file { discard(.file(file)) }
            throw error
        }
    }

    /// Removes a body's file, if it has one.
    static func discard(_ source: IngestSource) {
        if case .file(let url) = source { try? FileManager.default.removeItem(at: url) }
    }
}

/// The bytes so far: in memory, then in a file of their own in `directory`, named only when it is made
/// (a URL costs more than checking a small body).
private final class Spooled: @unchecked Sendable {
    // @unchecked: used by one task at a time: the child task that reads the body, then, once the task group
    // has ended, the caller.
    private let directory: String
    private(set) var file: URL?
    private var memory = Data()
    private var handle: FileHandle?

    init(directory: String) {
        self.directory = directory
    }

    func append(_ bytes: some Collection<UInt8>) throws {
        if handle == nil, memory.count + bytes.count <= SessionIngest.concurrentInputLimit {
            memory.append(contentsOf: bytes)
            return
        }
        if handle == nil {
            let file = URL(fileURLWithPath: directory).appendingPathComponent("sessionstore-body-\(UUID().uuidString)")
            self.file = file
            guard FileManager.default.createFile(atPath: file.path, contents: memory, attributes: [.posixPermissions: 0o600]),
                  let opened = try? FileHandle(forWritingTo: file) else {
                throw Problem(.internalFault)
            }
            try opened.seekToEnd()
            handle = opened
            memory = Data()
        }
        try handle!.write(contentsOf: Data(bytes))
    }

    func finish() throws -> IngestSource {
        guard let handle, let file else { return .bytes(memory) }
        try handle.close()
        return .file(file)
    }

    deinit {
        try? handle?.close()
    }
}
