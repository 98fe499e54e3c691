import Foundation

/// The Merkle tree kept in the `merkle` database: the hash of every complete, aligned subtree of
/// 2^L leaves for L ≥ ``storedLevel`` (key `level u8 ‖ index u64`, the subtree over leaves
/// `index·2^L ..< (index+1)·2^L`). Smaller subtrees are hashed from the records' leaf hashes when
/// needed (at most 255 of them), so the writer stores one node per 256 events and any subtree hash,
/// root or proof of a tree of n leaves costs O(log n) lookups plus at most two chunks of leaves.
enum MerkleNodes {
    static let storedLevel = 8
    static let chunk = UInt64(1) << UInt64(storedLevel)

    static func key(level: Int, index: UInt64) -> [UInt8] { [UInt8(level)] + [UInt8](bigEndian: index) }

    /// The stored leaf hash of the record at `position`.
    static func leaf(_ position: UInt64, in txn: StoreTransaction) throws -> [UInt8] {
        guard let record = try txn.get(StoreLayout.events, StoreLayout.positionKey(position)),
              record.count >= RecordLayout.leafEnd else {
            throw EventLogError.integrity(position, "is missing or too short to hold a leaf hash")
        }
        return Array(record[RecordLayout.leafOffset..<(RecordLayout.leafOffset + SHA256.digestBytes)])
    }

    /// The leaf hashes of positions `lo..<hi`, read in one cursor pass.
    static func leaves(_ lo: UInt64, _ hi: UInt64, in txn: StoreTransaction) throws -> [[UInt8]] {
        var hashes: [[UInt8]] = []
        hashes.reserveCapacity(Int(hi - lo))
        try txn.withCursor(StoreLayout.events) { cursor in
            var entry = try cursor.seek(atOrAfter: StoreLayout.positionKey(lo))
            for position in lo..<hi {
                guard let (key, record) = entry, key.count == 8, key.loadBigEndian(at: 0) as UInt64 == position,
                      record.count >= RecordLayout.leafEnd else {
                    throw EventLogError.integrity(position, "is missing from the log, so the tree over it cannot be hashed")
                }
                hashes.append(Array(record[RecordLayout.leafOffset..<(RecordLayout.leafOffset + SHA256.digestBytes)]))
                entry = try cursor.next()
            }
        }
        return hashes
    }

    /// Copies the leaf hashes of positions `lo..<hi` end to end into `buffer`, in one cursor pass.
    static func copyLeaves(_ lo: UInt64, _ hi: UInt64, into buffer: UnsafeMutableRawBufferPointer, in txn: StoreTransaction) throws {
        try txn.withCursor(StoreLayout.events) { cursor in
            var entry = try cursor.seek(atOrAfter: StoreLayout.positionKey(lo))
            for position in lo..<hi {
                guard let (key, record) = entry, key.count == 8, key.loadBigEndian(at: 0) as UInt64 == position,
                      record.count >= RecordLayout.leafEnd else {
                    throw EventLogError.integrity(position, "is missing from the log, so the tree over it cannot be hashed")
                }
                copyLeaf(of: record, into: buffer, slot: Int(position - lo))
                entry = try cursor.next()
            }
        }
    }

    /// Copies the leaf hash of `record` into the `slot`th 32 bytes of `buffer`.
    private static func copyLeaf(of record: UnsafeRawBufferPointer, into buffer: UnsafeMutableRawBufferPointer, slot: Int) {
        buffer.baseAddress!.advanced(by: slot * 32).copyMemory(from: record.baseAddress!.advanced(by: RecordLayout.leafOffset), byteCount: 32)
    }

    /// The hash of the leaves `lo..<hi` (RFC 9162's MTH of that range; `lo` aligned as the RFC's
    /// recursion makes it).
    static func node(_ lo: UInt64, _ hi: UInt64, in txn: StoreTransaction) throws -> [UInt8] {
        let size = hi - lo
        if size == 0 { return MerkleHash.empty }
        if size == 1 { return try leaf(lo, in: txn) }
        if size.nonzeroBitCount == 1, lo % size == 0 {
            let level = size.trailingZeroBitCount
            if level >= storedLevel {
                guard let stored = try txn.get(StoreLayout.merkle, key(level: level, index: lo / size)),
                      stored.count == SHA256.digestBytes else {
                    throw EventLogError(.integrity, "the Merkle tree lacks its node over positions \(lo)..<\(hi)")
                }
                return Array(stored)
            }
            return MerkleHash.root(of: try leaves(lo, hi, in: txn)[...])
        }
        let k = MerkleHash.split(size)
        return MerkleHash.interior(try node(lo, lo + k, in: txn), try node(lo + k, hi, in: txn))
    }

    /// What ``extend(from:to:records:in:)`` with records reads, for one prefetch (on PostgreSQL, one round
    /// trip for all): the leaves of the first chunk written before `oldSize`, and the left siblings of the
    /// nodes the chunks completed up to `newSize` complete.
    static func reads(extendingFrom oldSize: UInt64, to newSize: UInt64) -> KeyReads {
        let chunkIndex = oldSize / chunk
        guard (chunkIndex + 1) * chunk <= newSize else { return [] }
        let stored = (chunkIndex * chunk..<oldSize).map(StoreLayout.positionKey)
        let siblings = (chunkIndex..<(newSize / chunk)).flatMap { (index: UInt64) -> [[UInt8]] in
            (0..<(~index).trailingZeroBitCount).map { (step: Int) -> [UInt8] in
                let shifted: UInt64 = index >> UInt64(step)
                return key(level: storedLevel + step, index: shifted - 1)
            }
        }
        return [(StoreLayout.events, stored), (StoreLayout.merkle, siblings)]
    }

    /// Stores the nodes of every chunk of 256 leaves completed between tree sizes `oldSize` and
    /// `newSize` and of every larger subtree they complete, in the writing transaction. `records`, when
    /// given, are the records at positions `oldSize..<newSize` just written: their leaf hashes are taken
    /// from them rather than read back from the store (on PostgreSQL, a query per chunk), and what else
    /// it reads is ``reads(extendingFrom:to:)``, for the caller to prefetch.
    static func extend(from oldSize: UInt64, to newSize: UInt64, records: [[UInt8]]? = nil, in txn: StoreTransaction) throws {
        precondition(records.map { UInt64($0.count) == newSize - oldSize } ?? true, "one record per new position")
        var chunkIndex = oldSize / chunk
        guard (chunkIndex + 1) * chunk <= newSize else { return }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(chunk) * 32, alignment: 8)
        defer { buffer.deallocate() }
        while (chunkIndex + 1) * chunk <= newSize {
            let (lo, hi) = (chunkIndex * chunk, (chunkIndex + 1) * chunk)
            if let records {
                let stored = min(max(lo, oldSize), hi)
                for position in lo..<stored {
                    try leaf(position, in: txn).withUnsafeBytes { buffer.baseAddress!.advanced(by: Int(position - lo) * 32).copyMemory(from: $0.baseAddress!, byteCount: 32) }
                }
                for position in stored..<hi {
                    records[Int(position - oldSize)].withUnsafeBytes { copyLeaf(of: $0, into: buffer, slot: Int(position - lo)) }
                }
            } else {
                try copyLeaves(lo, hi, into: buffer, in: txn)
            }
            var hash = MerkleHash.root(ofPerfect: buffer, count: Int(chunk))
            var (level, index) = (storedLevel, chunkIndex)
            try txn.put(StoreLayout.merkle, key(level: level, index: index), hash)
            while index & 1 == 1 {
                guard let left = try txn.get(StoreLayout.merkle, key(level: level, index: index - 1)) else {
                    throw EventLogError(.integrity, "the Merkle tree lacks its node at level \(level) index \(index - 1)")
                }
                hash = MerkleHash.interior(Array(left), hash)
                (level, index) = (level + 1, index >> 1)
                try txn.put(StoreLayout.merkle, key(level: level, index: index), hash)
            }
            chunkIndex += 1
        }
    }
}
