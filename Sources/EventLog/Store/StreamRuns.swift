import Foundation

/// The `stream-runs` index: where each stream's events sit in the log.
///
/// The events of one append are contiguous in the log, so the index keeps one entry per append
/// rather than one per event (and extends the stream's last entry when an append directly follows
/// it in the log): key `stream id 16 | first stream number u64`, value `first position u64 | count u32`.
struct StreamRun: Equatable {
    var firstNumber: UInt64
    var firstPosition: UInt64
    var count: UInt32

    var numbers: Range<UInt64> { firstNumber..<(firstNumber + UInt64(count)) }

    func position(of number: UInt64) -> UInt64 { firstPosition + (number - firstNumber) }

    static func key(_ stream: StreamID, _ number: UInt64) -> [UInt8] {
        stream.uuid.bytes + [UInt8](bigEndian: number)
    }

    func write(_ stream: StreamID, in txn: StoreTransaction) throws {
        try txn.put(StoreLayout.streamRuns, Self.key(stream, firstNumber),
                    [UInt8](bigEndian: firstPosition) + [UInt8](bigEndian: count))
    }

    /// Decodes a cursor entry; nil when it belongs to another stream.
    static func decode(_ entry: StorageEntry, of stream: StreamID) throws -> StreamRun? {
        guard entry.key.count == 24, UUID(bytes: UnsafeRawBufferPointer(rebasing: entry.key[0..<16])) == stream.uuid else { return nil }
        guard entry.value.count == 12 else {
            throw EventLogError(.integrity, "the stream index of stream \(stream) is malformed", stream: stream)
        }
        return StreamRun(firstNumber: entry.key.loadBigEndian(at: 16), firstPosition: entry.value.loadBigEndian(at: 0),
                         count: entry.value.loadBigEndian(at: 8))
    }

    /// The stream's last run, or nil when it has none.
    static func last(of stream: StreamID, in txn: StoreTransaction) throws -> StreamRun? {
        try txn.withCursor(StoreLayout.streamRuns) { cursor in
            let after = try cursor.seek(atOrAfter: key(stream, .max))
            if let after, let run = try decode(after, of: stream) { return run }  // a run starting at UInt64.max
            guard let entry = try after == nil ? cursor.last() : cursor.previous() else { return nil }
            return try decode(entry, of: stream)
        }
    }

    /// The run of `stream` that starts at `number`, or nil when none does: one lookup of its key, which a
    /// prefetch of ``key(_:_:)`` reads ahead.
    static func starting(at number: UInt64, of stream: StreamID, in txn: StoreTransaction) throws -> StreamRun? {
        let key = key(stream, number)
        guard let value = try txn.get(StoreLayout.streamRuns, key) else { return nil }
        return try key.withUnsafeBytes { try decode((key: $0, value: value), of: stream) }
    }

    /// The run of `stream` holding `number`, or nil when none does.
    static func containing(_ number: UInt64, of stream: StreamID, in txn: StoreTransaction) throws -> StreamRun? {
        var found: StreamRun?
        try visit(stream, from: number, direction: .forward, in: txn) { run in
            found = run
            return false
        }
        return found
    }

    /// Visits the stream's runs from the one holding `number`, forward or backward, until `body` returns false.
    static func visit(_ stream: StreamID, from number: UInt64, direction: ReadDirection, in txn: StoreTransaction,
                      _ body: (StreamRun) throws -> Bool) throws {
        try txn.withCursor(StoreLayout.streamRuns) { cursor in
            // The run holding `number` is the last one whose first number is <= number.
            var entry = try cursor.seek(atOrAfter: key(stream, number))
            if let found = entry, let run = try decode(found, of: stream), run.firstNumber == number {
                // exact start of a run
            } else {
                entry = entry == nil ? try cursor.last() : try cursor.previous()
            }
            guard let start = entry, let first = try decode(start, of: stream), first.numbers.contains(number) else { return }
            var run = first
            while try body(run) {
                guard let next = try (direction == .forward ? cursor.next() : cursor.previous()),
                      let nextRun = try decode(next, of: stream) else { return }
                run = nextRun
            }
        }
    }
}
