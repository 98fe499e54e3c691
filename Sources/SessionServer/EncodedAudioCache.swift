import Foundation

/// The recordings last encoded for the audio route, so that a browser's audio element, which asks for
/// one byte range after another as it plays and seeks, does not have the session's audio decoded and
/// encoded again for each. Keyed by session, recording, container and the session stream's version (a
/// live session's new chunks make a new entry); at most `capacity` bytes, the least recently used let go
/// first. The route checks that the session may still be read (not erased) before it answers from here.
final class EncodedAudioCache: @unchecked Sendable {
    // @unchecked: every stored property is guarded by `lock`.
    struct Key: Hashable {
        var session: UUID
        var recording: String?
        var container: String
        var version: UInt64
    }

    private let lock = NSLock()
    private let capacity: Int
    private var entries: [Key: (bytes: [UInt8], used: UInt64)] = [:]
    private var bytes = 0
    private var clock: UInt64 = 0

    init(capacity: Int = 256 << 20) {
        self.capacity = capacity
    }

    func bytes(_ key: Key) -> [UInt8]? {
        lock.withLock {
            guard var entry = entries[key] else { return nil }
            clock += 1
            entry.used = clock
            entries[key] = entry
            return entry.bytes
        }
    }

    func keep(_ encoded: [UInt8], for key: Key) {
        guard encoded.count <= capacity / 2 else { return }
        lock.withLock {
            clock += 1
            if let old = entries.updateValue((encoded, clock), forKey: key) { bytes -= old.bytes.count }
            bytes += encoded.count
            while bytes > capacity, let oldest = entries.min(by: { $0.value.used < $1.value.used }) {
                bytes -= oldest.value.bytes.count
                entries[oldest.key] = nil
            }
        }
    }

    /// Forgets every recording of `session` (it was erased or purged).
    func forget(_ session: UUID) {
        lock.withLock {
            for key in entries.keys where key.session == session {
                bytes -= entries[key]!.bytes.count
                entries[key] = nil
            }
        }
    }
}
