import Foundation

/// Upgrades stores written by older format versions, in place and in one transaction each step.
///
/// Format 0 (the first stores) kept the stream index complete on every commit and no running
/// totals: upgrading records that every event is indexed (`meta/indexed-through`) and computes the
/// totals from the records' clear headers. Format 1 sealed every view row with the views key:
/// format 2 puts the sealing key's id in front of each row (0, the views key, for every old row),
/// so that rows holding a session's content can be sealed with its data key. Format 2 found a
/// resent event by reading every clear header of its stream: format 3 indexes event ids
/// (`event-ids`). Format 4 may seal consecutive events of a stream together as blocks, which older builds cannot
/// read: upgrading changes nothing else. No record is rewritten and no key is needed beyond the master key check.
enum FormatMigration {
    static func upgrade(from format: UInt32, in txn: StoreTransaction) throws -> [String] {
        var steps: [String] = []
        var current = format
        while current < StoreLayout.formatVersion {
            switch current {
            case 0:
                try upgradeFromFormat0(in: txn)
                steps.append("format 0 → 1: recorded that every event is indexed; computed the running totals")
            case 1:
                let rows = try upgradeFromFormat1(in: txn)
                let count = try txn.withCursor(StoreLayout.events) {
                    try $0.last().map { try StoreLayout.position(ofKey: $0.key) + 1 } ?? 0
                }
                try MerkleNodes.extend(from: 0, to: count, in: txn)
                steps.append("format 1 → 2: marked the \(rows) view rows as sealed with the views key; built the Merkle tree over \(count) records")
            case 2:
                let indexed = try StreamIndex.indexedThrough(in: txn)
                try StreamIndex.indexEventIDs(0..<indexed, in: txn)
                steps.append("format 2 → 3: indexed the ids of the \(indexed) indexed events")
            case 3:
                steps.append("format 3 → 4: new appends may seal consecutive events of a stream as one block; nothing stored changes")
            default:
                throw EventLogError(.unsupportedFormat, "no upgrade from format \(current) is known")
            }
            current += 1
        }
        try txn.put(StoreLayout.meta, StoreLayout.formatKey, [UInt8](bigEndian: StoreLayout.formatVersion))
        return steps
    }

    private static func upgradeFromFormat1(in txn: StoreTransaction) throws -> Int {
        var rows: [([UInt8], [UInt8])] = []
        try txn.withCursor(StoreLayout.views) { cursor in
            var entry = try cursor.first()
            while let (key, value) = entry {
                rows.append((Array(key), [0, 0, 0, 0] + Array(value)))
                entry = try cursor.next()
            }
        }
        for (key, value) in rows { try txn.put(StoreLayout.views, key, value) }
        return rows.count
    }

    private static func upgradeFromFormat0(in txn: StoreTransaction) throws {
        var totals = StoreTotals()
        var count: UInt64 = 0
        try txn.withCursor(StoreLayout.events) { cursor in
            var entry = try cursor.first()
            while let (key, record) = entry {
                guard key.count == 8, let header = RecordHeader(parsing: record) else {
                    throw EventLogError.integrity(key.count == 8 ? key.loadBigEndian(at: 0) : 0, "has an unreadable header")
                }
                totals.bodyBytes += UInt64(header.bodyCount)
                totals.compressedBytes += UInt64(RecordLayout.ciphertextCount(of: record))
                totals.recordBytes += UInt64(record.count)
                count = try StoreLayout.position(ofKey: key) + 1
                entry = try cursor.next()
            }
        }
        try totals.write(in: txn)
        try txn.put(StoreLayout.meta, StoreLayout.indexedThroughKey, [UInt8](bigEndian: count))
    }
}

extension EventLog {
    /// The format version of the store at `directory`, read without a key.
    public static func formatVersion(at directory: String, options: EventLogOptions = EventLogOptions()) throws -> UInt32 {
        let environment = try StoreEnvironment.open(directory, .existing, options: options)
        return try environment.read { txn in try StoreOpening.format(in: txn) }
    }

    /// Upgrades the store at `directory` to this build's format, checking the key first. Returns
    /// what was done (nothing for a store that is current). A store of a newer format is refused.
    public static func migrate(at directory: String, key: KeySource, options: EventLogOptions = EventLogOptions()) throws -> [String] {
        do {
            let master = try {
                let environment = try StoreEnvironment.open(directory, .existing, options: options)
                return try environment.read { txn in
                    let master = try StoreOpening.masterKey(for: key, directory: directory, of: environment.backend, in: txn)
                    try StoreOpening.checkKey(KeyHierarchy(master: master), storeID: try StoreOpening.storeID(in: txn), in: txn)
                    return master
                }
            }()  // closed here; opened again creating the databases a newer format adds, now that the key is right
            let environment = try StoreEnvironment.open(directory, .upgrading, options: options)
            return try environment.write { txn in
                let format = try StoreOpening.format(in: txn)
                guard format <= StoreLayout.formatVersion else {
                    throw EventLogError(.unsupportedFormat, "the store at \(directory) has format \(format), newer than this build's \(StoreLayout.formatVersion); open it with a newer build")
                }
                let storeID = try StoreOpening.storeID(in: txn)
                try StoreOpening.checkKey(KeyHierarchy(master: master), storeID: storeID, in: txn)
                return format == StoreLayout.formatVersion ? [] : try FormatMigration.upgrade(from: format, in: txn)
            }
        } catch {
            throw EventLogError.storage(error)
        }
    }
}
