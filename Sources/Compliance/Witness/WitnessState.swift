import EventLog
import Failures
import Foundation
import HexCoding

/// What a witness remembers of each log, on disk: per origin, the latest checkpoint it cosigned, in a
/// directory. Each log's state is one file (`HEX(SHA-256(origin)).checkpoint`: the checkpoint's note as
/// received), replaced whole by a rename after the new file is synced, so that a crash leaves the old
/// state or the new one, never a mix. A lock file serialises the check and the update across processes
/// (C2SP tlog-witness: checking the old size and persisting the new checkpoint must be atomic).
struct WitnessState {
    let directory: URL

    init(directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.directory = directory
    }

    /// Runs `body` holding the directory's lock alone.
    func locked<R>(_ body: () throws -> R) throws -> R {
        let path = directory.appendingPathComponent("lock").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw WitnessFailure("cannot open the witness's lock file \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw WitnessFailure("cannot lock \(path): \(String(cString: strerror(errno)))") }
        }
        return try body()
    }

    /// The note of the latest checkpoint cosigned for `origin`; nil when none was.
    func latest(of origin: String) throws -> String? {
        let url = file(of: origin)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try String(contentsOf: url, encoding: .utf8)
    }

    /// Makes `note` the latest checkpoint cosigned for `origin`, durably.
    func record(_ note: String, of origin: String) throws {
        let url = file(of: origin)
        let temporary = url.appendingPathExtension("new")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw WitnessFailure("cannot write \(temporary.path): \(String(cString: strerror(errno)))") }
        let bytes = Array(note.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == bytes.count, synced, rename(temporary.path, url.path) == 0 else {
            throw WitnessFailure("cannot record the checkpoint in \(url.path): \(String(cString: strerror(errno)))")
        }
        let directoryDescriptor = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }

    private func file(of origin: String) -> URL {
        directory.appendingPathComponent(Hex.string(SHA256.hash(Array(origin.utf8))) + ".checkpoint")
    }
}

/// A witness that cannot use its state directory.
public struct WitnessFailure: CodedError {
    public var code: ErrorCode<WitnessFailure> { .stateUnusable }
    public var message: String
    init(_ message: String) { self.message = message }
}

extension ErrorCode where Domain == WitnessFailure {
    /// The witness's state directory cannot be locked, read or written.
    public static let stateUnusable = Self("state unusable", .unexpected)
}
