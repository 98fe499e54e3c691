import Foundation

/// The stream index as a reader sees it: `streams` and `stream-runs` cover the log up to
/// `meta/indexed-through`; events after it (the tail, at most a few thousand) are found by their
/// clear headers. Committing an event therefore writes no index page; the writer folds the tail
/// into the index once it holds ``StoreEnvironment/maximumIndexTail`` events.
enum StreamIndex {

    /// One event of the tail: where it is and what its clear header says.
    struct TailEntry: Sendable {
        var position: UInt64
        var header: RecordHeader
    }

    static func indexedThrough(in txn: StoreTransaction) throws -> UInt64 {
        guard let bytes = try txn.get(StoreLayout.meta, StoreLayout.indexedThroughKey) else { return 0 }
        guard bytes.count == 8 else { throw EventLogError(.integrity, "meta indexed-through is malformed") }
        return bytes.loadBigEndian(at: 0)
    }

    /// The position after the last event of the log in `txn`'s snapshot.
    static func end(in txn: StoreTransaction) throws -> UInt64 {
        try txn.withCursor(StoreLayout.events) { cursor in try cursor.last().map { try StoreLayout.position(ofKey: $0.key) + 1 } ?? 0 }
    }

    /// The tail's events, all or only those of `stream`, in log order: one stream's from the environment's
    /// ``TailDirectory`` when it describes this snapshot, else from every clear header of the tail.
    static func tail(of stream: StreamID? = nil, in txn: StoreTransaction) throws -> [TailEntry] {
        let start = try indexedThrough(in: txn)
        if let stream, let directory = txn.tailDirectory,
           let known = directory.entries(of: stream, indexedThrough: start, end: try end(in: txn)) {
            return known
        }
        return try scannedTail(of: stream, from: start, in: txn)
    }

    /// The tail's events from `start` (indexed-through), all or only those of `stream`, from their clear headers.
    static func scannedTail(of stream: StreamID?, from start: UInt64, in txn: StoreTransaction) throws -> [TailEntry] {
        let wanted = stream?.uuid
        var entries: [TailEntry] = []
        try txn.withCursor(StoreLayout.events) { cursor in
            var entry = try cursor.seek(atOrAfter: StoreLayout.positionKey(start))
            while let (key, record) = entry {
                let position: UInt64 = key.count == 8 ? key.loadBigEndian(at: 0) : .max
                if let wanted, record.count >= 24, UUID(bytes: UnsafeRawBufferPointer(rebasing: record[8..<24])) != wanted {
                    entry = try cursor.next()
                    continue
                }
                guard let header = RecordHeader(parsing: record) else {
                    throw EventLogError.integrity(position, "has an unreadable header, so the stream it belongs to is unknown")
                }
                entries.append(TailEntry(position: position, header: header))
                entry = try cursor.next()
            }
        }
        return entries
    }

    /// A stream's events in a reader's snapshot: the indexed part and the tail part.
    struct View {
        var row: StreamRow
        /// The number of events covered by `stream-runs`.
        var indexedVersion: UInt64
        /// Positions of the stream's events in the tail, for numbers `indexedVersion...`.
        var tailPositions: [UInt64]
        var version: UInt64 { indexedVersion + UInt64(tailPositions.count) }

        func metadata(_ stream: StreamID, lastIndexedPosition: UInt64?) -> StreamMetadata {
            StreamMetadata(stream: stream, version: version, createdAtMilliseconds: row.createdAtMilliseconds,
                           keyID: row.keyID, firstPosition: row.firstPosition,
                           lastPosition: tailPositions.last ?? lastIndexedPosition ?? row.firstPosition)
        }
    }

    /// Calls `body` with the number, position and clear header of every event of `stream` (seen as
    /// `view`), in order.
    private static func forEachHeader(of stream: StreamID, _ view: View, in txn: StoreTransaction,
                                      _ body: (UInt64, UInt64, RecordHeader) throws -> Void) throws {
        func visit(_ number: UInt64, _ position: UInt64) throws {
            guard let record = try txn.get(StoreLayout.events, StoreLayout.positionKey(position)),
                  let header = RecordHeader(parsing: record) else {
                throw EventLogError.integrity(position, "is missing or has an unreadable header")
            }
            try body(number, position, header)
        }
        if view.indexedVersion > 0 {
            try StreamRun.visit(stream, from: 0, direction: .forward, in: txn) { run in
                for number in run.numbers { try visit(number, run.position(of: number)) }
                return true
            }
        }
        for (offset, position) in view.tailPositions.enumerated() { try visit(view.indexedVersion + UInt64(offset), position) }
    }

    /// The stream numbers and positions of the events of `stream` whose ids are in `ids`: one lookup per
    /// id in `event-ids` (the indexed part, read in one round trip on PostgreSQL), then the tail's clear
    /// headers; nothing decrypted, and nothing read that grows with the stream. An id the stream holds
    /// twice (appended without de-duplication) names its last event.
    static func places(of ids: Set<UUID>, in stream: StreamID, in txn: StoreTransaction) throws -> [UUID: (number: UInt64, position: UInt64)] {
        guard !ids.isEmpty else { return [:] }
        let keys = ids.map { (id: $0, key: StoreLayout.eventIDKey(stream.uuid, $0)) }
        try txn.prefetch([(StoreLayout.eventIDs, keys.map(\.key))])
        var found: [UUID: (number: UInt64, position: UInt64)] = [:]
        for (id, key) in keys {
            guard let value = try txn.get(StoreLayout.eventIDs, key) else { continue }
            guard let place = eventIDEntry(value) else {
                throw EventLogError(.integrity, "the event-ids entry of event \(id) of stream \(stream) is malformed", stream: stream)
            }
            found[id] = place
        }
        for entry in try tail(of: stream, in: txn) where ids.contains(entry.header.eventID) {
            found[entry.header.eventID] = (entry.header.streamNumber, entry.position)
        }
        return found
    }

    /// Adds the events at positions `range` to `event-ids` from their clear headers, in log order (so that
    /// an id a stream holds twice names its last event): as the writer folds the tail into the index, and
    /// for every indexed event when a format-2 store is migrated.
    static func indexEventIDs(_ range: Range<UInt64>, in txn: StoreTransaction) throws {
        try txn.withCursor(StoreLayout.events) { cursor in
            var entry = try cursor.seek(atOrAfter: StoreLayout.positionKey(range.lowerBound))
            while let (key, record) = entry {
                let position = try StoreLayout.position(ofKey: key)
                guard position < range.upperBound else { break }
                guard let header = RecordHeader(parsing: record) else {
                    throw EventLogError.integrity(position, "has an unreadable header, so the stream it belongs to is unknown")
                }
                try txn.put(StoreLayout.eventIDs, StoreLayout.eventIDKey(header.stream, header.eventID),
                            [UInt8](bigEndian: header.streamNumber) + [UInt8](bigEndian: position))
                entry = try cursor.next()
            }
        }
    }

    /// An `event-ids` value: stream number ‖ position; nil when it is not 16 bytes.
    static func eventIDEntry(_ value: UnsafeRawBufferPointer) -> (number: UInt64, position: UInt64)? {
        value.count == 16 ? (value.loadBigEndian(at: 0), value.loadBigEndian(at: 8)) : nil
    }

    /// The data key id of `stream`, or nil when it has no events: from its row, or (for a stream
    /// whose first event is in the tail) from that event's header.
    static func keyID(of stream: StreamID, in txn: StoreTransaction) throws -> UInt32? {
        if let row = try StreamRow.read(stream, in: txn) { return row.keyID }
        return try tail(of: stream, in: txn).first?.header.keyID
    }

    /// The stream as a reader sees it, or nil when it has no events.
    static func view(of stream: StreamID, in txn: StoreTransaction) throws -> (View, lastRun: StreamRun?)? {
        let lastRun = try StreamRun.last(of: stream, in: txn)
        let indexedVersion = lastRun?.numbers.upperBound ?? 0
        var row = try StreamRow.read(stream, in: txn)
        var tailPositions: [UInt64] = []
        for entry in try tail(of: stream, in: txn) {
            guard entry.header.streamNumber == indexedVersion + UInt64(tailPositions.count) else {
                throw EventLogError.integrity(entry.position, "is number \(entry.header.streamNumber) of stream \(stream), out of sequence")
            }
            if row == nil {
                row = StreamRow(createdAtMilliseconds: entry.header.recordedAtMilliseconds, keyID: entry.header.keyID,
                                firstPosition: entry.position)
            }
            tailPositions.append(entry.position)
        }
        guard let row else { return nil }
        return (View(row: row, indexedVersion: indexedVersion, tailPositions: tailPositions), lastRun)
    }
}
