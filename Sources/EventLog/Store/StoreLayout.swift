#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Names of the LMDB databases and `meta` keys; docs/FORMAT.md describes each byte for byte.
package enum StoreLayout {
    static let formatVersion: UInt32 = 4

    package static let meta = "meta"
    package static let events = "events"
    static let streams = "streams"
    static let streamRuns = "stream-runs"
    static let keys = "keys"
    static let dictionaries = "dictionaries"
    static let nonceBases = "nonce-bases"
    static let views = "views"
    static let viewCheckpoints = "view-checkpoints"
    static let merkle = "merkle"
    static let discardableKeys = "discardable-keys"
    static let eventIDs = "event-ids"
    package static let all = [meta, events, streams, streamRuns, keys, dictionaries, nonceBases, views, viewCheckpoints, merkle, discardableKeys,
                              eventIDs]

    /// Throws unless `directory` holds a data file this process may read (and write, unless `readOnly`):
    /// ``EventLogError/Code/storeMissing`` when there is none, ``EventLogError/Code/permissionDenied``
    /// when the directory or file forbids it.
    static func requireDataFile(in directory: String, readOnly: Bool = false) throws {
        let dataFile = (directory as NSString).appendingPathComponent(dataFileName)
        guard access(dataFile, readOnly ? R_OK : R_OK | W_OK) != 0 else { return }
        let reason = errno
        switch reason {
        case ENOENT, ENOTDIR:
            throw EventLogError(.storeMissing, "there is no store at \(directory): " + describeNonStore(directory), path: directory)
        case EACCES, EPERM:
            throw EventLogError(.permissionDenied,
                                "cannot open the store at \(directory): this user may not read\(readOnly ? "" : " and write") \(dataFileName) there (permission denied)",
                                path: directory)
        default:
            throw EventLogError(.storeUnusable, "cannot open the store at \(directory): \(String(cString: strerror(reason)))", path: directory)
        }
    }

    /// Whether this user may write the store's data file (false on a read-only copy or file system).
    static func dataFileIsWritable(in directory: String) -> Bool {
        access((directory as NSString).appendingPathComponent(dataFileName), W_OK) == 0
    }

    /// What is at a path that holds no store, in words: a file, an empty or another directory, nothing.
    static func describeNonStore(_ path: String) -> String {
        var status = stat()
        guard stat(path, &status) == 0 else { return "nothing is there" }
        switch status.st_mode & S_IFMT {
        case S_IFDIR:
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            return entries.isEmpty ? "it is an empty directory" : "it is a directory without \(dataFileName) (\(entries.count) other entries)"
        case S_IFREG:
            return "it is a regular file, not a store directory"
        default:
            return "it is not a directory"
        }
    }

    static let formatKey = Array("format".utf8)
    static let storeIDKey = Array("store-id".utf8)
    static let createdAtKey = Array("created-at".utf8)
    static let passphraseKDFKey = Array("kdf".utf8)
    static let keyCheckKey = Array("key-check".utf8)
    static let nextKeyIDKey = Array("next-key-id".utf8)
    static let currentDictionaryKey = Array("current-dictionary".utf8)
    static let totalsKey = Array("totals".utf8)
    static let indexedThroughKey = Array("indexed-through".utf8)
    static let stableKeysKey = Array("stable-keys".utf8)
    /// In an unfinished copy (``EventLog/copy(to:batchRecords:progress:)``), instead of `format`: the id of
    /// the store being copied.
    static let copyOfKey = Array("copy-of".utf8)

    static let dataFileName = "data.mdb"
    static let lockFileName = "lock.mdb"
    /// A compaction's copy of the data file while it is written (docs/FORMAT.md §1).
    static let compactingFileName = "data.mdb.compacting"

    static func positionKey(_ position: UInt64) -> [UInt8] { [UInt8](bigEndian: position) }

    /// The `event-ids` key of event `id` of `stream`: stream id (16) ‖ event id (16).
    static func eventIDKey(_ stream: UUID, _ id: UUID) -> [UInt8] { stream.bytes + id.bytes }

    /// The number of events in `txn`'s log, which is also the position the next event will take.
    static func eventCount(in txn: StoreTransaction) throws -> UInt64 {
        try txn.withCursor(events) { try $0.last().map { try position(ofKey: $0.key) + 1 } ?? 0 }
    }

    /// The position an `events` key names; a key of another length (a damaged page) is an integrity
    /// failure, never a read past its end.
    static func position(ofKey key: UnsafeRawBufferPointer) throws -> UInt64 {
        guard key.count == 8 else { throw EventLogError(.integrity, "the events database holds a key of \(key.count) bytes; the data file is damaged") }
        return key.loadBigEndian(at: 0)
    }
}

/// A stream's row in the `streams` database, written once when the stream is created (20 bytes):
/// `created-at ms i64 | key id u32 | first position u64`. The stream's version and last position
/// come from its last run in `stream-runs`, so an append rewrites only that run's page.
struct StreamRow: Equatable {
    static let byteCount = 20
    var createdAtMilliseconds: Int64
    var keyID: UInt32
    var firstPosition: UInt64

    init(createdAtMilliseconds: Int64, keyID: UInt32, firstPosition: UInt64) {
        self.createdAtMilliseconds = createdAtMilliseconds
        self.keyID = keyID
        self.firstPosition = firstPosition
    }

    init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count == Self.byteCount else { return nil }
        createdAtMilliseconds = bytes.loadBigEndian(at: 0)
        keyID = bytes.loadBigEndian(at: 8)
        firstPosition = bytes.loadBigEndian(at: 12)
    }

    var bytes: [UInt8] {
        [UInt8](bigEndian: createdAtMilliseconds) + [UInt8](bigEndian: keyID) + [UInt8](bigEndian: firstPosition)
    }

    static func read(_ stream: StreamID, in txn: StoreTransaction) throws -> StreamRow? {
        guard let bytes = try txn.get(StoreLayout.streams, stream.uuid.bytes) else { return nil }
        guard let row = StreamRow(bytes) else {
            throw EventLogError(.integrity, "the row of stream \(stream) is malformed", stream: stream)
        }
        return row
    }
}

/// A stream as it is now: its row and its last run.
struct StreamState: Equatable {
    var row: StreamRow
    var lastRun: StreamRun

    /// The number of events in the stream.
    var version: UInt64 { lastRun.numbers.upperBound }

    static func read(_ stream: StreamID, in txn: StoreTransaction) throws -> StreamState? {
        guard let row = try StreamRow.read(stream, in: txn) else { return nil }
        guard let lastRun = try StreamRun.last(of: stream, in: txn) else {
            throw EventLogError(.integrity, "stream \(stream) has a row but no events in the stream index", stream: stream)
        }
        return StreamState(row: row, lastRun: lastRun)
    }
}

/// Running totals kept in `meta` under `totals` (24 bytes):
/// `body bytes u64 | compressed bytes u64 | record bytes u64`.
struct StoreTotals {
    var bodyBytes: UInt64 = 0
    var compressedBytes: UInt64 = 0
    var recordBytes: UInt64 = 0

    static func read(in txn: StoreTransaction) throws -> StoreTotals {
        guard let bytes = try txn.get(StoreLayout.meta, StoreLayout.totalsKey), bytes.count == 24 else { return StoreTotals() }
        return StoreTotals(bodyBytes: bytes.loadBigEndian(at: 0), compressedBytes: bytes.loadBigEndian(at: 8),
                           recordBytes: bytes.loadBigEndian(at: 16))
    }

    func write(in txn: StoreTransaction) throws {
        try txn.put(StoreLayout.meta, StoreLayout.totalsKey,
                    [UInt8](bigEndian: bodyBytes) + [UInt8](bigEndian: compressedBytes) + [UInt8](bigEndian: recordBytes))
    }
}
