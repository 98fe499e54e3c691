import Foundation

extension EventLog {
    /// The events `stream` holds among `ids`, by id, decrypted (events whose key is destroyed are left out):
    /// so that a resent event can be compared with the one stored under its id.
    public func storedEvents(of stream: StreamID, withIDs ids: Set<UUID>) throws -> [UUID: RecordedEvent] {
        try reading { txn in try storedEvents(of: stream, withIDs: ids, in: txn) }
    }

    func storedEvents(of stream: StreamID, withIDs ids: Set<UUID>, in txn: StoreTransaction) throws -> [UUID: RecordedEvent] {
        let places = try StreamIndex.places(of: ids, in: stream, in: txn)
        // Read together in position order, so that a block holding several of them (a whole batch resent) is opened once.
        var idsAt: [UInt64: (number: UInt64, ids: [UUID])] = [:]
        for (id, place) in places { idsAt[place.position, default: (place.number, [])].ids.append(id) }
        let ordered = idsAt.map { (number: $0.value.number, position: $0.key) }.sorted { $0.position < $1.position }
        var events: [UUID: RecordedEvent] = [:]
        for event in try readIndexed(stream, at: ordered, skippingErased: true, in: txn, transform: { $0 }) {
            for id in idsAt[event.position]?.ids ?? [] { events[id] = event }
        }
        return events
    }

    /// The global positions of the events `stream` holds among `ids`, by id, from the index of event ids
    /// and the unindexed tail's clear headers (nothing decrypted).
    public func storedPositions(of stream: StreamID, withIDs ids: Set<UUID>) throws -> [UUID: UInt64] {
        try reading { txn in try StreamIndex.places(of: ids, in: stream, in: txn).mapValues(\.position) }
    }
}
