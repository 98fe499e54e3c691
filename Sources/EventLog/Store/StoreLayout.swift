/// Names of the LMDB databases and `meta` keys; docs/FORMAT.md describes each byte for byte.
enum StoreLayout {
    static let formatVersion: UInt32 = 1

    static let meta = "meta"
    static let events = "events"
    static let streams = "streams"
    static let streamRuns = "stream-runs"
    static let keys = "keys"
    static let dictionaries = "dictionaries"
    static let all = [meta, events, streams, streamRuns, keys, dictionaries]

    static let formatKey = Array("format".utf8)
    static let storeIDKey = Array("store-id".utf8)
    static let createdAtKey = Array("created-at".utf8)
    static let passphraseKDFKey = Array("kdf".utf8)
    static let keyCheckKey = Array("key-check".utf8)
    static let nextKeyIDKey = Array("next-key-id".utf8)
    static let currentDictionaryKey = Array("current-dictionary".utf8)
    static let totalsKey = Array("totals".utf8)

    static let dataFileName = "data.mdb"
    static let lockFileName = "lock.mdb"

    static func positionKey(_ position: UInt64) -> [UInt8] { [UInt8](bigEndian: position) }
}

/// A stream's row in the `streams` database (36 bytes):
/// `version u64 | created-at ms i64 | key id u32 | first position u64 | last position u64`.
struct StreamRow: Equatable {
    static let byteCount = 36
    var version: UInt64
    var createdAtMilliseconds: Int64
    var keyID: UInt32
    var firstPosition: UInt64
    var lastPosition: UInt64

    init(version: UInt64, createdAtMilliseconds: Int64, keyID: UInt32, firstPosition: UInt64, lastPosition: UInt64) {
        self.version = version
        self.createdAtMilliseconds = createdAtMilliseconds
        self.keyID = keyID
        self.firstPosition = firstPosition
        self.lastPosition = lastPosition
    }

    init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count == Self.byteCount else { return nil }
        version = bytes.loadBigEndian(at: 0)
        createdAtMilliseconds = bytes.loadBigEndian(at: 8)
        keyID = bytes.loadBigEndian(at: 16)
        firstPosition = bytes.loadBigEndian(at: 20)
        lastPosition = bytes.loadBigEndian(at: 28)
    }

    var bytes: [UInt8] {
        [UInt8](bigEndian: version) + [UInt8](bigEndian: createdAtMilliseconds) + [UInt8](bigEndian: keyID)
            + [UInt8](bigEndian: firstPosition) + [UInt8](bigEndian: lastPosition)
    }

    static func read(_ stream: StreamID, in txn: LMDBTransaction) throws -> StreamRow? {
        guard let bytes = try txn.get(StoreLayout.streams, stream.uuid.bytes) else { return nil }
        guard let row = StreamRow(bytes) else {
            throw EventLogError(.integrity, "the row of stream \(stream) is malformed", stream: stream)
        }
        return row
    }

    func metadata(_ stream: StreamID) -> StreamMetadata {
        StreamMetadata(stream: stream, version: version, createdAtMilliseconds: createdAtMilliseconds,
                       keyID: keyID, firstPosition: firstPosition, lastPosition: lastPosition)
    }
}

/// Running totals kept in `meta` under `totals` (24 bytes):
/// `body bytes u64 | compressed bytes u64 | record bytes u64`.
struct StoreTotals {
    var bodyBytes: UInt64 = 0
    var compressedBytes: UInt64 = 0
    var recordBytes: UInt64 = 0

    static func read(in txn: LMDBTransaction) throws -> StoreTotals {
        guard let bytes = try txn.get(StoreLayout.meta, StoreLayout.totalsKey), bytes.count == 24 else { return StoreTotals() }
        return StoreTotals(bodyBytes: bytes.loadBigEndian(at: 0), compressedBytes: bytes.loadBigEndian(at: 8),
                           recordBytes: bytes.loadBigEndian(at: 16))
    }

    func write(in txn: LMDBTransaction) throws {
        try txn.put(StoreLayout.meta, StoreLayout.totalsKey,
                    [UInt8](bigEndian: bodyBytes) + [UInt8](bigEndian: compressedBytes) + [UInt8](bigEndian: recordBytes))
    }
}
