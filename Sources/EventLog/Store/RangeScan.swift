import Foundation

/// A long read of the log on two threads: the records are cut into ranges of consecutive positions, and each range is
/// read and opened whole by one thread, in a read transaction of its own. A record is read and opened on one core and
/// crosses to another at most once, as a finished value; the threads meet once a range, not once a chunk.
///
/// The caller's thread opens ranges too, and hands every range's values on in order; the helper thread keeps at most
/// ``lookahead`` ranges opened ahead of what was handed on. (docs/PERFORMANCE.md, "Reads": the pipeline of chunks it
/// replaced handed every record from a reading thread to two workers and back, and scanned about a quarter slower.)
final class RangeScan<T>: @unchecked Sendable {
    // @unchecked: the variables are guarded by `condition`; a range's values pass from the helper to the caller's
    // thread only through `opened`, under it.
    private let condition = NSCondition()
    private var claimed = 0
    private var handedOn = 0
    private var opened: [Int: Result<[Result<T, any Error>], any Error>] = [:]
    private var finished = false
    private var helping = false

    /// Positions a range holds: larger ones (8,192) and more of them opened ahead (4) scanned slower.
    static var rangeSize: Int { 2048 }
    private let lookahead = 2
    private let ranges: Int
    private let open: (Int) throws -> [Result<T, any Error>]

    /// A scan of `ranges` ranges, of which `open` reads and opens the one it is given (on either thread).
    init(ranges: Int, open: @escaping (Int) throws -> [Result<T, any Error>]) {
        self.ranges = ranges
        self.open = open
    }

    /// Hands each range's values to `body`, in order; returns once the helper thread has stopped, whatever is thrown.
    func run(_ body: ([Result<T, any Error>]) throws -> Void) throws {
        helping = true
        Thread.detachNewThread { [self] in help() }
        defer {
            condition.lock()
            finished = true
            condition.broadcast()
            while helping { condition.wait() }
            condition.unlock()
        }
        for index in 0..<ranges {
            try body(try take(index).get())
        }
    }

    /// Range `index`'s values: waited for while the helper opens it, unless a range after it can be opened meanwhile.
    private func take(_ index: Int) -> Result<[Result<T, any Error>], any Error> {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let values = opened.removeValue(forKey: index) {
                handedOn = index + 1
                condition.broadcast()
                return values
            }
            if claimed < ranges, claimed < index + lookahead {
                openNext()
            } else {
                condition.wait()
            }
        }
    }

    private func help() {
        condition.lock()
        defer {
            helping = false
            condition.broadcast()
            condition.unlock()
        }
        while !finished, claimed < ranges {
            if claimed < handedOn + lookahead {
                openNext()
                condition.broadcast()
            } else {
                condition.wait()
            }
        }
    }

    /// Claims the next range and opens it, with `condition` let go meanwhile; called with it held.
    private func openNext() {
        let index = claimed
        claimed += 1
        condition.unlock()
        let values = Result { try open(index) }
        condition.lock()
        opened[index] = values
    }
}

extension EventLog {
    /// Opens the records at `positions` on two threads (``RangeScan``) and hands each one's value to `body` in order;
    /// `skippingErased` and `transform` as in ``readAll(from:maxCount:skippingErased:transform:)``.
    func forEachRecord<T>(inRanges positions: Range<UInt64>, skippingErased: Bool,
                          transform: @escaping @Sendable (RecordedEvent) throws -> T, _ body: (T) throws -> Void) throws {
        let size = UInt64(RangeScan<T>.rangeSize)
        let scan = RangeScan<T>(ranges: Int((UInt64(positions.count) + size - 1) / size)) { [self] index in
            let lower = positions.lowerBound + UInt64(index) * size
            return try reading { txn in
                try openRecords(lower..<min(lower + size, positions.upperBound), in: txn, transform: transform)
            }
        }
        try scan.run { values in try ChunkDecoder.handOn(values, skippingErased: skippingErased, to: body) }
    }

    /// The records at `positions` read in `txn`, walked with a cursor (on PostgreSQL in batches that grow to 1,024 rows,
    /// which read a range faster than asking for its keys at once: 750k–790k against 456k–486k events/s), and opened,
    /// on this thread alone when `alone`, else on all cores. Records are never removed, so a position without one
    /// ends the values with a failure: the log is damaged there.
    func openRecords<T>(_ positions: Range<UInt64>, in txn: StoreTransaction, alone: Bool = true,
                        transform: @escaping @Sendable (RecordedEvent) throws -> T) throws -> [Result<T, any Error>] {
        var entries: [ChunkDecoder.Entry] = []
        entries.reserveCapacity(positions.count)
        try txn.withCursor(StoreLayout.events) { cursor in
            var entry = try cursor.seek(atOrAfter: StoreLayout.positionKey(positions.lowerBound))
            while let (key, value) = entry {
                let position = try StoreLayout.position(ofKey: key)
                guard position == positions.lowerBound + UInt64(entries.count), position < positions.upperBound else { break }
                entries.append((position, value))
                entry = try cursor.next()
            }
        }
        var values = ChunkDecoder(opener: opener).decode(entries, in: txn, alone: alone, transform: transform)
        if entries.count < positions.count {
            let missing = positions.lowerBound + UInt64(entries.count)
            values.append(.failure(EventLogError.integrity(missing, "is missing, though the log holds records after it")))
        }
        return values
    }
}
