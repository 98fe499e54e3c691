import Foundation

/// Sizes and counts of a store, for `sessionstore stats`.
public struct StoreStatistics: Hashable, Sendable, Codable {
    /// Records in the log.
    public var events: UInt64
    /// Streams with at least one event.
    public var streams: Int
    /// Data keys not destroyed (erased streams' keys are gone).
    public var dataKeys: Int
    /// Compression dictionaries installed.
    public var dictionaries: Int
    /// Size of the store's files (data and lock file) on disk; on PostgreSQL, of its tables on the server.
    public var bytesOnDisk: UInt64
    /// Event bodies (type and data) before compression.
    public var payloadBytes: UInt64
    /// Event bodies after compression (before the encryption tag).
    public var compressedPayloadBytes: UInt64
    /// Whole records: header, leaf hash, nonce, ciphertext and tag.
    public var recordBytes: UInt64
    /// The LMDB map's current size in bytes (it grows by itself); 0 on PostgreSQL.
    public var mapSize: UInt64
    /// Bytes of the map in use; 0 on PostgreSQL.
    public var mapUsed: UInt64

    /// Payload bytes before compression over after; 0 for an empty store.
    public var compressionRatio: Double {
        compressedPayloadBytes == 0 ? 0 : Double(payloadBytes) / Double(compressedPayloadBytes)
    }
}

extension EventLog {
    /// Counts and sizes of what the store holds, from running totals and LMDB's own figures (no scan).
    public func statistics() throws -> StoreStatistics {
        let sizes: StorageSizes
        do { sizes = try environment.sizes() } catch { throw EventLogError.storage(error) }
        return try reading { txn in
            let totals = try StoreTotals.read(in: txn)
            let events = try txn.withCursor(StoreLayout.events) {
                try $0.last().map { try StoreLayout.position(ofKey: $0.key) + 1 } ?? 0
            }
            // Streams created in the unindexed tail have no row yet.
            let tailStreams = Set(try StreamIndex.tail(in: txn).map(\.header.stream))
            let unindexed = try tailStreams.filter { try StreamRow.read(StreamID($0), in: txn) == nil }.count
            return StoreStatistics(
                events: events, streams: try txn.count(StoreLayout.streams) + unindexed, dataKeys: try txn.count(StoreLayout.keys),
                dictionaries: try txn.count(StoreLayout.dictionaries), bytesOnDisk: sizes.bytes,
                payloadBytes: totals.bodyBytes, compressedPayloadBytes: totals.compressedBytes,
                recordBytes: totals.recordBytes, mapSize: sizes.mapSize, mapUsed: sizes.mapUsed)
        }
    }
}
