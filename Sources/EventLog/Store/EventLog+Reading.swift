extension EventLog {
    /// Reads up to `maxCount` events of `stream` from stream number `number`, forward or backward.
    /// Without `number`, forward reads start at the first event and backward reads at the last.
    /// An unknown stream reads as empty.
    public func readStream(_ stream: StreamID, from number: UInt64? = nil, direction: ReadDirection = .forward,
                           maxCount: Int = .max) throws -> [RecordedEvent] {
        try reading { txn in
            let places = try streamPositions(stream, from: number, direction: direction, maxCount: maxCount, in: txn)
            // Opened in log order, so that each nonce base and data key is looked up once per chunk.
            let ascending = direction == .forward ? places : places.reversed()
            let events = try readIndexed(stream, at: ascending, skippingErased: false, in: txn) { $0 }
            return direction == .forward ? events : events.reversed()
        }
    }

    /// Reads up to `maxCount` events of `stream` forward from stream number `number`, and turns each
    /// into a `T` with `transform`, which runs on the decoding threads (several at once), as
    /// ``readAll(from:maxCount:skippingErased:transform:)`` does. With `skippingErased`, events whose
    /// key was destroyed (discarded events, say) are left out instead of failing the read.
    public func readStream<T>(_ stream: StreamID, from number: UInt64 = 0, maxCount: Int = .max, skippingErased: Bool = false,
                              transform: @escaping @Sendable (RecordedEvent) throws -> T) throws -> [T] {
        try reading { txn in
            try readStream(stream, from: number, maxCount: maxCount, skippingErased: skippingErased, in: txn, transform: transform)
        }
    }

    /// ``readStream(_:from:maxCount:skippingErased:transform:)`` in a transaction of the caller's.
    func readStream<T>(_ stream: StreamID, from number: UInt64, maxCount: Int, skippingErased: Bool, in txn: StoreTransaction,
                       transform: @escaping @Sendable (RecordedEvent) throws -> T) throws -> [T] {
        let places = try streamPositions(stream, from: number, direction: .forward, maxCount: maxCount, in: txn)
        return try readIndexed(stream, at: places, skippingErased: skippingErased, in: txn, transform: transform)
    }

    /// The events of `stream` at `places` (its index's stream numbers and positions, in ascending order),
    /// read a chunk at a time and checked against the index; `skippingErased` and `transform` as in
    /// ``readStream(_:from:maxCount:skippingErased:transform:)``.
    func readIndexed<T>(_ stream: StreamID, at places: [(number: UInt64, position: UInt64)], skippingErased: Bool,
                        in txn: StoreTransaction, transform: @escaping @Sendable (RecordedEvent) throws -> T) throws -> [T] {
        let decoder = ChunkDecoder(opener: opener)
        var results: [T] = []
        results.reserveCapacity(places.count)
        for start in stride(from: 0, to: places.count, by: 1024) {
            let batch = Array(places[start..<min(start + 1024, places.count)])
            let entries = try Self.records(of: stream, at: batch, in: txn)
            // Ascending in both, so an event's expected number is found by its position's place among them.
            let positions = batch.map(\.position), numbers = batch.map(\.number)
            let checked: @Sendable (RecordedEvent) throws -> T = { event in
                var (low, high) = (0, positions.count)
                while low < high {
                    let middle = (low + high) / 2
                    if positions[middle] < event.position { low = middle + 1 } else { high = middle }
                }
                let expected = low < positions.count && positions[low] == event.position ? numbers[low] : nil
                guard event.stream == stream, event.streamNumber == expected else {
                    throw EventLogError.integrity(event.position, "is not stream \(stream) number \(expected ?? 0), as the stream index says")
                }
                return try transform(event)
            }
            try ChunkDecoder.handOn(decoder.decode(entries, in: txn, transform: checked), skippingErased: skippingErased) {
                results.append($0)
            }
        }
        return results
    }

    /// The records at `places` (ascending), as read in `txn`: fetched in one round trip where the backend reads ahead
    /// (PostgreSQL), else walked with a cursor along each run of consecutive positions (a step per record, not a lookup).
    private static func records(of stream: StreamID, at places: [(number: UInt64, position: UInt64)],
                                in txn: StoreTransaction) throws -> [ChunkDecoder.Entry] {
        func missing(_ place: (number: UInt64, position: UInt64)) -> EventLogError {
            .integrity(place.position, "is missing (stream \(stream) number \(place.number) is indexed there)")
        }
        var entries: [ChunkDecoder.Entry] = []
        entries.reserveCapacity(places.count)
        if txn.readsAhead {
            try txn.prefetch(StoreLayout.events, keys: places.map { StoreLayout.positionKey($0.position) })
            for place in places {
                guard let record = try txn.get(StoreLayout.events, StoreLayout.positionKey(place.position)) else { throw missing(place) }
                entries.append((place.position, record))
            }
            return entries
        }
        try txn.withCursor(StoreLayout.events) { cursor in
            var entry: StorageEntry?
            for place in places {
                if let (key, _) = entry, key.count == 8, key.loadBigEndian(at: 0) as UInt64 + 1 == place.position {
                    entry = try cursor.next()
                } else {
                    entry = try cursor.seek(atOrAfter: StoreLayout.positionKey(place.position))
                }
                guard let (key, record) = entry, key.count == 8, key.loadBigEndian(at: 0) as UInt64 == place.position else {
                    throw missing(place)
                }
                entries.append((place.position, record))
            }
        }
        return entries
    }

    /// The global positions of the stream's events, by stream number, read from the index and the
    /// clear headers (no key needed: also for an erased stream).
    public func positions(of stream: StreamID) throws -> [UInt64] {
        try reading { txn in
            try streamPositions(stream, from: nil, direction: .forward, maxCount: .max, in: txn).map(\.position)
        }
    }

    /// Where the stream's events are: (stream number, global position) in the order asked for.
    private func streamPositions(_ stream: StreamID, from number: UInt64?, direction: ReadDirection, maxCount: Int,
                                 in txn: StoreTransaction) throws -> [(number: UInt64, position: UInt64)] {
        guard maxCount > 0, let (view, _) = try StreamIndex.view(of: stream, in: txn) else { return [] }
        let start = number ?? (direction == .forward ? 0 : view.version - 1)
        guard start < view.version else { return [] }
        var places: [(number: UInt64, position: UInt64)] = []
        func add(_ number: UInt64, _ position: UInt64) -> Bool {
            places.append((number, position))
            return places.count < maxCount
        }
        func addIndexed(from first: UInt64) throws {
            try StreamRun.visit(stream, from: first, direction: direction, in: txn) { run in
                let numbers = direction == .forward
                    ? Array(max(first, run.firstNumber)..<run.numbers.upperBound)
                    : Array((run.firstNumber...min(first, run.numbers.upperBound - 1)).reversed())
                for number in numbers where !add(number, run.position(of: number)) { return false }
                return true
            }
        }
        let tail = view.tailPositions.indices.map { (view.indexedVersion + UInt64($0), view.tailPositions[$0]) }
        if direction == .forward {
            if start < view.indexedVersion { try addIndexed(from: start) }
            for (number, position) in tail where number >= start && places.count < maxCount {
                _ = add(number, position)
            }
        } else {
            for (number, position) in tail.reversed() where number <= start && places.count < maxCount {
                _ = add(number, position)
            }
            if places.count < maxCount, view.indexedVersion > 0 { try addIndexed(from: min(start, view.indexedVersion - 1)) }
        }
        return places
    }

    /// Reads up to `maxCount` events of the whole log from global position `position` on.
    ///
    /// With `skippingErased`, records whose data key was destroyed are left out (they still count
    /// towards `maxCount`, so that a batch ends at `position + maxCount`); otherwise the first one
    /// fails the read with ``EventLogError/Code/keyDestroyed``.
    public func readAll(from position: UInt64 = 0, maxCount: Int = .max, skippingErased: Bool = false) throws -> [RecordedEvent] {
        try readAll(from: position, maxCount: maxCount, skippingErased: skippingErased) { $0 }
    }

    /// Reads up to `maxCount` events from `position` on and turns each into a `T` with `transform`,
    /// which runs on the decoding threads (several at once): a decoder of payloads belongs here.
    /// `skippingErased` as in ``readAll(from:maxCount:skippingErased:)``.
    public func readAll<T>(from position: UInt64 = 0, maxCount: Int = .max, skippingErased: Bool = false,
                           transform: @escaping @Sendable (RecordedEvent) throws -> T) throws -> [T] {
        var results: [T] = []
        try forEachRecord(from: position, maxCount: maxCount, skippingErased: skippingErased, transform: transform) {
            results.append($0)
        }
        return results
    }

    /// Calls `body` with each event of the log from `position` on, in order, in constant memory, and with those
    /// appended meanwhile. `skippingErased` as in ``readAll(from:maxCount:skippingErased:)``.
    public func forEachEvent(from position: UInt64 = 0, skippingErased: Bool = false,
                             _ body: (RecordedEvent) throws -> Void) throws {
        var next = position
        while true {
            let visited = try forEachRecord(from: next, maxCount: .max, skippingErased: skippingErased, transform: { $0 }, body)
            guard visited.next > next else { return }
            next = visited.next
        }
    }

    /// The stream's current metadata, or nil when it does not exist.
    public func streamMetadata(_ stream: StreamID) throws -> StreamMetadata? {
        try reading { txn in try Self.streamMetadata(stream, in: txn) }
    }

    static func streamMetadata(_ stream: StreamID, in txn: StoreTransaction) throws -> StreamMetadata? {
        guard let (view, lastRun) = try StreamIndex.view(of: stream, in: txn) else { return nil }
        return view.metadata(stream, lastIndexedPosition: lastRun.map { $0.position(of: $0.numbers.upperBound - 1) })
    }

    /// The store time of the last event (ms since 1970, from its clear header: erased or not), nil
    /// for an empty log: the "now" of checks that must not read a clock.
    public func lastRecordedAtMilliseconds() throws -> Int64? {
        try reading { txn in
            try txn.withCursor(StoreLayout.events) { cursor in
                try cursor.last().flatMap { RecordHeader(parsing: $0.value)?.recordedAtMilliseconds }
            }
        }
    }

    /// Lets go of the store's pages this process has mapped and read (LMDB), so that a long sequential
    /// read (a replay of an hour) does not keep the whole store resident; they are read again from the
    /// page cache if touched. Nothing to do on PostgreSQL.
    public func releaseMappedPages() {
        environment.releaseMappedPages()
    }

    /// Whether the store is served by a read-only replica (a PostgreSQL hot standby): everything reads,
    /// and every write (an append, a view's rows) is refused. Always false on LMDB.
    public func isReadOnlyReplica() throws -> Bool {
        do {
            return try environment.isReadOnlyReplica()
        } catch {
            throw EventLogError.storage(error)
        }
    }

    /// The number of events in the log, which is also the position the next event will take.
    public func eventCount() throws -> UInt64 {
        try reading(StoreLayout.eventCount)
    }

    /// Visits up to `maxCount` records from `position` on, to the log's end as this call finds it, handing each one's
    /// value to `body` in order; returns the position after the last one visited (erased ones included), and whether
    /// `maxCount` were visited (there may be more) rather than the log ending first. Up to a range's worth
    /// (``RangeScan/rangeSize``) are read in one transaction and opened on all cores; more, in ranges on two threads.
    @discardableResult
    func forEachRecord<T>(from position: UInt64, maxCount: Int, skippingErased: Bool,
                          transform: @escaping @Sendable (RecordedEvent) throws -> T,
                          _ body: (T) throws -> Void) throws -> (next: UInt64, more: Bool) {
        guard maxCount > 0 else { return (position, true) }
        let (end, values) = try reading { txn -> (UInt64, [Result<T, any Error>]?) in
            let count = try StoreLayout.eventCount(in: txn)
            let end = count > position && UInt64(maxCount) < count - position ? position + UInt64(maxCount) : count
            guard end > position, end - position <= UInt64(RangeScan<T>.rangeSize) else { return (end, nil) }
            return (end, try openRecords(position..<end, in: txn, alone: false, transform: transform))
        }
        guard end > position else { return (position, false) }
        if let values {
            try ChunkDecoder.handOn(values, skippingErased: skippingErased, to: body)
        } else {
            try forEachRecord(inRanges: position..<end, skippingErased: skippingErased, transform: transform, body)
        }
        return (end, end - position == UInt64(maxCount))
    }
}
