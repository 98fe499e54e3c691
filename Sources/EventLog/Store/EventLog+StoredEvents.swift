import Foundation

extension EventLog {
    /// The events `stream` holds among `ids`, by id, decrypted (events whose key is destroyed are left out):
    /// so that a resent event can be compared with the one stored under its id.
    public func storedEvents(of stream: StreamID, withIDs ids: Set<UUID>) throws -> [UUID: RecordedEvent] {
        try reading { txn in try storedEvents(of: stream, withIDs: ids, in: txn) }
    }

    func storedEvents(of stream: StreamID, withIDs ids: Set<UUID>, in txn: StoreTransaction) throws -> [UUID: RecordedEvent] {
        var events: [UUID: RecordedEvent] = [:]
        for (id, place) in try StreamIndex.places(of: ids, in: stream, in: txn) {
            do {
                events[id] = try readIndexed(stream, number: place.number, position: place.position, in: txn)
            } catch let error as EventLogError where error.code == .keyDestroyed {
                continue
            }
        }
        return events
    }

    /// The global positions of the events `stream` holds among `ids`, by id, from the index of event ids
    /// and the unindexed tail's clear headers (nothing decrypted).
    public func storedPositions(of stream: StreamID, withIDs ids: Set<UUID>) throws -> [UUID: UInt64] {
        try reading { txn in try StreamIndex.places(of: ids, in: stream, in: txn).mapValues(\.position) }
    }
}
