import Synchronization

/// The unindexed tail of the log by stream (docs/FORMAT.md §6), as this process's writer committed it,
/// so that finding one stream's events in the tail is a lookup instead of a scan of every stream's tail
/// (an append looks up its stream several times). A snapshot whose tail this describes, or an older one
/// with the same indexed-through, takes its entries from here; any other snapshot scans the clear
/// headers as it would without it: another process appended or folded since, or a write transaction has
/// written records of its own. Kept by the storage environment, one per open store.
package final class TailDirectory: Sendable {
    private struct Tail {
        var indexedThrough: UInt64
        /// The position after the last event described.
        var end: UInt64
        var byStream: [StreamID: [StreamIndex.TailEntry]]
    }

    private let tail = Mutex<Tail?>(nil)

    package init() {}

    /// The tail entries of `stream` in a snapshot whose tail is `indexedThrough..<end`, in log order; nil
    /// when this directory does not describe that snapshot.
    func entries(of stream: StreamID, indexedThrough: UInt64, end: UInt64) -> [StreamIndex.TailEntry]? {
        tail.withLock { tail in
            guard let tail, tail.indexedThrough == indexedThrough, tail.end >= end else { return nil }
            let entries = tail.byStream[stream] ?? []
            return tail.end == end ? entries : entries.filter { $0.position < end }
        }
    }

    /// Takes in a commit of this process's writer that started at position `start`: the whole tail as the
    /// transaction found it when it scanned it (`rescanned`, with its indexed-through), the events it
    /// appended up to `end`, and the position it folded the tail through, if it did. A commit that does
    /// not continue what the directory describes, and was not rescanned, leaves it describing nothing.
    func committed(from start: UInt64, rescanned: (indexedThrough: UInt64, entries: [StreamIndex.TailEntry])?,
                   appended: [StreamIndex.TailEntry], through end: UInt64, foldedThrough: UInt64?) {
        tail.withLock { tail in
            var current: Tail
            if let rescanned {
                current = Tail(indexedThrough: rescanned.indexedThrough, end: start, byStream: [:])
                for entry in rescanned.entries { current.byStream[StreamID(entry.header.stream), default: []].append(entry) }
            } else if let known = tail, known.end == start {
                current = known
            } else {
                tail = nil
                return
            }
            for entry in appended { current.byStream[StreamID(entry.header.stream), default: []].append(entry) }
            current.end = end
            if let folded = foldedThrough {
                current.indexedThrough = folded
                current.byStream = current.byStream.compactMapValues { entries in
                    let rest = entries.filter { $0.position >= folded }
                    return rest.isEmpty ? nil : rest
                }
            }
            tail = current
        }
    }

    /// Describes nothing until the writer next rescans the tail (after a write it does not account for).
    func forget() {
        tail.withLock { $0 = nil }
    }
}
