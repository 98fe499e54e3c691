import Foundation
import Hummingbird

/// A request body written to a file of its own as it arrives, so that a body of any size is checked and
/// appended without being held in memory, and a body that never arrives whole appends nothing.
enum BodySpool {
    /// Reads `body` into a new file in `directory` and returns it (the caller removes it): 413 when it
    /// passes `maximumBytes` or one of its lines passes `maximumLineBytes`, 408 when it is not whole
    /// within `timeout`; no file is left behind when it fails.
    static func spool(_ body: RequestBody, in directory: String, maximumBytes: Int, maximumLineBytes: Int, timeout: Duration) async throws -> URL {
        let file = URL(fileURLWithPath: directory).appendingPathComponent("sessionstore-body-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600]),
              let handle = try? FileHandle(forWritingTo: file) else {
            throw Problem(status: .internalServerError, type: "internal", title: "The server cannot spool request bodies.")
        }
        do {
            defer { try? handle.close() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    var total = 0, line = 1, lineBytes = 0
                    for try await buffer in body {
                        total += buffer.readableBytes
                        guard total <= maximumBytes else {
                            throw Problem(status: .contentTooLarge, type: "body-too-large", title: "The request body is too large.",
                                          detail: "the body passes \(maximumBytes) bytes; send the events in several requests")
                        }
                        buffer.withUnsafeReadableBytes { bytes in
                            for byte in bytes {
                                if byte == UInt8(ascii: "\n") { line += 1; lineBytes = 0 } else { lineBytes += 1 }
                                if lineBytes > maximumLineBytes { break }
                            }
                        }
                        guard lineBytes <= maximumLineBytes else {
                            throw Problem(status: .contentTooLarge, type: "line-too-large", title: "A line of the body is too long.",
                                          detail: "line \(line) passes \(maximumLineBytes) bytes; split the audio into smaller chunks")
                        }
                        try handle.write(contentsOf: buffer.readableBytesView)
                    }
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw Problem(status: .requestTimeout, type: "body-timeout", title: "The request body did not arrive in time.",
                                  detail: "the body was not whole within \(timeout.components.seconds) seconds")
                }
                try await group.next()
                group.cancelAll()
            }
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw error
        }
        return file
    }
}
