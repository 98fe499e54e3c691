import Foundation
import Synchronization

/// The recordings last encoded for the audio route, so that a browser's audio element, which asks for
/// one byte range after another as it plays and seeks, does not have the session's audio decoded and
/// encoded again for each. Keyed by session, recording, container and the session stream's version (a
/// live session's new chunks make a new entry); at most `capacity` bytes, the least recently used let go
/// first. The route checks that the session may still be read (not erased) before it answers from here.
final class EncodedAudioCache: Sendable {
    struct Key: Hashable {
        var session: UUID
        var recording: String?
        var container: String
        var version: UInt64
    }

    private struct Entries {
        var byKey: [Key: (bytes: [UInt8], used: UInt64)] = [:]
        var bytes = 0
        var clock: UInt64 = 0
    }

    private let capacity: Int
    private let entries = Mutex(Entries())

    init(capacity: Int = 256 << 20) {
        self.capacity = capacity
    }

    func bytes(_ key: Key) -> [UInt8]? {
        entries.withLock { entries in
            guard var entry = entries.byKey[key] else { return nil }
            entries.clock += 1
            entry.used = entries.clock
            entries.byKey[key] = entry
            return entry.bytes
        }
    }

    func keep(_ encoded: [UInt8], for key: Key) {
        guard encoded.count <= capacity / 2 else { return }
        entries.withLock { entries in
            entries.clock += 1
            if let old = entries.byKey.updateValue((encoded, entries.clock), forKey: key) { entries.bytes -= old.bytes.count }
            entries.bytes += encoded.count
            while entries.bytes > capacity, let oldest = entries.byKey.min(by: { $0.value.used < $1.value.used }) {
                entries.bytes -= oldest.value.bytes.count
                entries.byKey[oldest.key] = nil
            }
        }
    }

    /// Forgets every recording of `session` (it was erased or purged).
    func forget(_ session: UUID) {
        entries.withLock { entries in
            for key in entries.byKey.keys where key.session == session {
                entries.bytes -= entries.byKey[key]!.bytes.count
                entries.byKey[key] = nil
            }
        }
    }
}
