extension EventLog {
    /// Reads up to `maxCount` events of `stream` from stream number `number`, forward or backward.
    /// Without `number`, forward reads start at the first event and backward reads at the last.
    /// An unknown stream reads as empty.
    public func readStream(_ stream: StreamID, from number: UInt64? = nil, direction: ReadDirection = .forward,
                           maxCount: Int = .max) throws -> [RecordedEvent] {
        try reading { txn in
            guard maxCount > 0, let state = try StreamState.read(stream, in: txn) else { return [] }
            let start = number ?? (direction == .forward ? 0 : state.version - 1)
            guard start < state.version else { return [] }
            var events: [RecordedEvent] = []
            try StreamRun.visit(stream, from: start, direction: direction, in: txn) { run in
                let numbers = direction == .forward
                    ? Array(max(start, run.firstNumber)..<run.numbers.upperBound)
                    : Array((run.firstNumber...min(start, run.numbers.upperBound - 1)).reversed())
                for number in numbers {
                    events.append(try readIndexed(stream, number: number, position: run.position(of: number), in: txn))
                    if events.count == maxCount { return false }
                }
                return true
            }
            return events
        }
    }

    /// Reads up to `maxCount` events of the whole log from global position `position` on.
    public func readAll(from position: UInt64 = 0, maxCount: Int = .max) throws -> [RecordedEvent] {
        var events: [RecordedEvent] = []
        try forEachRecord(from: position, maxCount: maxCount) { events.append($0) }
        return events
    }

    /// Calls `body` with each event of the log from `position` on, in order, in constant memory.
    public func forEachEvent(from position: UInt64 = 0, _ body: (RecordedEvent) throws -> Void) throws {
        var next = position
        var read = 0
        repeat {
            read = 0
            try forEachRecord(from: next, maxCount: 4096) { event in
                read += 1
                next = event.position + 1
                try body(event)
            }
        } while read == 4096
    }

    /// The stream's current metadata, or nil when it does not exist.
    public func streamMetadata(_ stream: StreamID) throws -> StreamMetadata? {
        try reading { txn in try StreamState.read(stream, in: txn)?.metadata(stream) }
    }

    /// The number of events in the log, which is also the position the next event will take.
    public func eventCount() throws -> UInt64 {
        try reading { txn in
            try txn.withCursor(StoreLayout.events) { try $0.last().map { $0.key.loadBigEndian(at: 0, as: UInt64.self) + 1 } ?? 0 }
        }
    }

    private func forEachRecord(from position: UInt64, maxCount: Int, _ body: (RecordedEvent) throws -> Void) throws {
        guard maxCount > 0 else { return }
        let decoder = ChunkDecoder(opener: opener)
        try reading { txn in
            try txn.withCursor(StoreLayout.events) { cursor in
                var entry = try cursor.seek(atOrAfter: StoreLayout.positionKey(position))
                var remaining = maxCount
                while entry != nil, remaining > 0 {
                    // Gather a chunk (the bytes stay valid while the transaction lasts), open it on all cores.
                    var chunk: [ChunkDecoder.Entry] = []
                    chunk.reserveCapacity(min(remaining, 1024))
                    while let (key, value) = entry, chunk.count < min(remaining, 1024) {
                        guard key.count == 8 else { throw EventLogError(.integrity, "the events database holds a malformed key") }
                        chunk.append((key.loadBigEndian(at: 0), value))
                        entry = try cursor.next()
                    }
                    remaining -= chunk.count
                    for result in decoder.decode(chunk, in: txn) { try body(try result.get()) }
                }
            }
        }
    }

    /// Reads the event the stream index places at `position`, checking that it is what the index says.
    private func readIndexed(_ stream: StreamID, number: UInt64, position: UInt64, in txn: LMDBTransaction) throws -> RecordedEvent {
        guard let record = try txn.get(StoreLayout.events, StoreLayout.positionKey(position)) else {
            throw EventLogError.integrity(position, "is missing (stream \(stream) number \(number) is indexed there)")
        }
        let event = try opener.open(record, position: position, in: txn)
        guard event.stream == stream, event.streamNumber == number else {
            throw EventLogError.integrity(position, "is not stream \(stream) number \(number), as the stream index says")
        }
        return event
    }
}
