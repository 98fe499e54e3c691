import Foundation

/// Records that are authenticated and decrypted together: one record sealed on its own, or every record of one block
/// (docs/FORMAT.md §5.8), in position order. A block's records are read whole even when only some are wanted.
struct SealedUnit {
    /// The position of its first record: the one whose nonce and ciphertext it has.
    var position: UInt64
    /// Its first record: the record itself when it was sealed on its own.
    var first: UnsafeRawBufferPointer
    /// Every record of a block, in order, the first included; empty for a record on its own (no array per record).
    private var blockRecords: [UnsafeRawBufferPointer] = []
    /// Why the unit could not be put together (a record of its block missing, or not of it), if it could not.
    var problem: String?

    /// A record on its own, or one that could not be put together with its block (`problem`).
    init(position: UInt64, record: UnsafeRawBufferPointer, problem: String? = nil) {
        self.position = position
        first = record
        self.problem = problem
    }

    /// A block's records, or (one record) a record on its own.
    init(position: UInt64, records: [UnsafeRawBufferPointer]) {
        self.position = position
        first = records[0]
        blockRecords = records.count > 1 ? records : []
    }

    /// Every record, in order.
    var records: [UnsafeRawBufferPointer] { blockRecords.isEmpty ? [first] : blockRecords }
    /// A record sealed on its own, put together without a problem.
    var isSingle: Bool { problem == nil && blockRecords.isEmpty }
    var positions: Range<UInt64> { position..<(position + UInt64(max(blockRecords.count, 1))) }

    /// The records of `entries` (ascending positions, as read) grouped by the unit each belongs to, with each unit's
    /// records read from `txn` where the entries do not hold them all (a block cut by the end of a chunk, or a read
    /// that starts inside a block). `entries` gives the range of the entries the unit serves.
    static func group(_ entries: [ChunkDecoder.Entry], in txn: StoreTransaction) throws -> [(unit: SealedUnit, entries: Range<Int>)] {
        if txn.readsAhead { try readAhead(for: entries, in: txn) }
        var groups: [(unit: SealedUnit, entries: Range<Int>)] = []
        var index = 0
        while index < entries.count {
            let (position, record) = entries[index]
            let unit = try unit(of: record, at: position, among: entries, near: index, in: txn)
            var end = index + 1
            if unit.problem == nil {
                while end < entries.count, unit.positions.contains(entries[end].position) { end += 1 }
            }
            groups.append((unit, index..<end))
            index = end
        }
        return groups
    }

    /// Reads the records that the entries' blocks need and the entries lack, in two round trips (on PostgreSQL, a read
    /// is one): first the first records of blocks begun before the entries, then every record missing from a block.
    private static func readAhead(for entries: [ChunkDecoder.Entry], in txn: StoreTransaction) throws {
        let held = Set(entries.map(\.position))
        var firsts: Set<UInt64> = []
        for (position, record) in entries where record.first == RecordHeader.Kind.blockMember.rawValue && record.count == RecordLayout.blockMemberCount {
            let distance = UInt64(record.loadBigEndian(at: RecordLayout.blockFieldOffset) as UInt16)
            if distance <= position, !held.contains(position - distance) { firsts.insert(position - distance) }
        }
        try txn.prefetch([(StoreLayout.events, firsts.sorted().map(StoreLayout.positionKey))])
        // The blocks' first records: those the entries hold, and those just read (asking again for one the entries hold
        // would be a round trip each).
        var heads = entries.filter { $0.record.first == RecordHeader.Kind.blockHead.rawValue }
        for first in firsts {
            if let head = try txn.get(StoreLayout.events, StoreLayout.positionKey(first)) { heads.append((first, head)) }
        }
        var missing: Set<UInt64> = []
        for (first, head) in heads where head.count >= RecordLayout.blockCiphertextOffset {
            let count = UInt64(head.loadBigEndian(at: RecordLayout.blockFieldOffset) as UInt16)
            for member in first..<(first + count) where !held.contains(member) { missing.insert(member) }
        }
        try txn.prefetch([(StoreLayout.events, missing.sorted().map(StoreLayout.positionKey))])
    }

    /// The unit the record at `position` belongs to; `entries[index]` is that record.
    private static func unit(of record: UnsafeRawBufferPointer, at position: UInt64, among entries: [ChunkDecoder.Entry],
                             near index: Int, in txn: StoreTransaction) throws -> SealedUnit {
        func stored(_ wanted: UInt64) throws -> UnsafeRawBufferPointer? {
            let offset = index + Int(Int64(bitPattern: wanted &- position))
            if entries.indices.contains(offset), entries[offset].position == wanted { return entries[offset].record }
            return try txn.get(StoreLayout.events, StoreLayout.positionKey(wanted))
        }
        func broken(_ problem: String) -> SealedUnit { SealedUnit(position: position, record: record, problem: problem) }
        guard let kind = record.first.flatMap(RecordHeader.Kind.init(rawValue:)), kind != .single else {
            return SealedUnit(position: position, record: record)  // opening it says what is wrong
        }
        var first = position
        if kind == .blockMember {
            guard record.count == RecordLayout.blockMemberCount else {
                return broken("is malformed (\(record.count) bytes for a record of a block after its first)")
            }
            let distance = UInt64(record.loadBigEndian(at: RecordLayout.blockFieldOffset) as UInt16)
            guard distance > 0, distance <= position else {
                return broken("is malformed (its distance to its block's first record is \(distance))")
            }
            first = position - distance
        }
        guard let head = try stored(first), head.count >= RecordLayout.blockCiphertextOffset,
              head.first == RecordHeader.Kind.blockHead.rawValue else {
            return broken("belongs to a block whose first record, at position \(first), is missing or not the first of a block")
        }
        let count = UInt64(head.loadBigEndian(at: RecordLayout.blockFieldOffset) as UInt16)
        guard count >= 2, position < first + count else {
            return broken("is not within the block at position \(first), which holds \(count) records")
        }
        var records = [head]
        records.reserveCapacity(Int(count))
        for member in (first + 1)..<(first + count) {
            guard let stored = try stored(member) else {
                return broken("belongs to the block at position \(first), whose record at position \(member) is missing")
            }
            records.append(stored)
        }
        return SealedUnit(position: first, records: records)
    }
}
