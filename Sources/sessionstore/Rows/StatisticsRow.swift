import EventLog
import Output
import SessionModel

/// The store's statistics as one JSON object.
struct StatisticsRow: OutputRow {
    static let columns = ["events", "streams", "data_keys", "dictionaries", "bytes_on_disk", "payload_bytes",
                          "compressed_payload_bytes", "compression_ratio", "record_bytes", "map_size", "map_used", "version"]

    var statistics: StoreStatistics

    func write(to fields: inout Fields) {
        let s = statistics
        fields.field("events", s.events)
        fields.field("streams", s.streams)
        fields.field("data_keys", s.dataKeys)
        fields.field("dictionaries", s.dictionaries)
        fields.field("bytes_on_disk", s.bytesOnDisk)
        fields.field("payload_bytes", s.payloadBytes)
        fields.field("compressed_payload_bytes", s.compressedPayloadBytes)
        fields.field("compression_ratio", (s.compressionRatio * 1000).rounded() / 1000)
        fields.field("record_bytes", s.recordBytes)
        fields.field("map_size", s.mapSize)
        fields.field("map_used", s.mapUsed)
        fields.field("version", SessionStoreRelease.version)
    }
}
