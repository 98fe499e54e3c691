import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory `flock` on the store directory itself (no extra file): every open environment holds
/// it shared; compaction, which replaces `data.mdb`, holds it exclusive. A process that opens the
/// store while a compaction runs waits for it, then maps the new file.
final class DirectoryLock: Sendable {
    private let descriptor: Int32

    /// Takes the lock on `directory`, waiting for it when `wait`; nil when `wait` is false and
    /// another holder keeps it.
    init?(_ directory: String, exclusive: Bool, wait: Bool) throws {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw EventLogError(.storeUnusable, "cannot open the store directory \(directory): \(String(cString: strerror(errno)))",
                                path: directory)
        }
        var operation = exclusive ? LOCK_EX : LOCK_SH
        if !wait { operation |= LOCK_NB }
        while flock(descriptor, operation) != 0 {
            if errno == EINTR { continue }
            let failure = errno
            close(descriptor)
            if failure == EWOULDBLOCK { return nil }
            throw EventLogError(.storeUnusable, "cannot lock the store directory \(directory): \(String(cString: strerror(failure)))",
                                path: directory)
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)  // releases the lock
    }
}
