/// The nonces of one write transaction: 24 random bytes drawn once per transaction (one syscall),
/// stored in `nonce-bases` under the transaction's first position. The nonce of the record at
/// position `p` is the base with its last 8 bytes XORed with `p` (big-endian).
///
/// Positions are unique in the log, so nonces within a transaction differ; a fresh random 192-bit
/// base per transaction makes a collision across transactions as unlikely as with random nonces.
struct NonceBase: Equatable {
    static let byteCount = AEAD.nonceBytes
    let bytes: [UInt8]

    init(bytes: [UInt8]) {
        precondition(bytes.count == Self.byteCount)
        self.bytes = bytes
    }

    static func random() -> NonceBase {
        NonceBase(bytes: Sodium.randomBytes(count: byteCount))
    }

    /// Lends the nonce of the record at `position`.
    func withNonce<R>(for position: UInt64, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeTemporaryAllocation(byteCount: Self.byteCount, alignment: 8) { nonce in
            bytes.withUnsafeBytes { nonce.copyMemory(from: $0) }
            nonce.storeBigEndian(UInt64(bigEndian: nonce.loadUnaligned(fromByteOffset: 16, as: UInt64.self)) ^ position, at: 16)
            return try body(UnsafeRawBufferPointer(nonce))
        }
    }

    func write(firstPosition: UInt64, in txn: StoreTransaction) throws {
        try txn.put(StoreLayout.nonceBases, StoreLayout.positionKey(firstPosition), bytes, append: true)
    }
}

/// Finds the nonce base of positions read in ascending order. A lookup learns the base of its position
/// and of the transactions that follow it (up to ``ahead``) in one cursor walk, so a scan seeks once per
/// several transactions: on PostgreSQL, about three queries per ``ahead`` bases instead of per base.
/// Lives inside one read transaction.
struct NonceBaseCursor {
    /// Bases known, ascending, each with the positions it covers.
    private var known: [(range: Range<UInt64>, base: NonceBase)] = []
    private static let ahead = 16

    /// The base for `position`; nil when the store has none (a damaged store).
    mutating func base(for position: UInt64, in txn: StoreTransaction) throws -> NonceBase? {
        if let hit = known.first(where: { $0.range.contains(position) }) { return hit.base }
        known = try Self.bases(from: position, in: txn)
        return known.first { $0.range.contains(position) }?.base
    }

    /// The base covering `position` (the entry with the greatest first position ≤ it) and those after it.
    private static func bases(from position: UInt64, in txn: StoreTransaction) throws -> [(range: Range<UInt64>, base: NonceBase)] {
        try txn.withCursor(StoreLayout.nonceBases) { cursor in
            var entries: [(first: UInt64, value: [UInt8])] = []
            func take(_ entry: StorageEntry?) -> Bool {
                guard let (key, value) = entry, key.count == 8 else { return false }
                entries.append((key.loadBigEndian(at: 0), Array(value)))
                return true
            }
            var entry = try cursor.seek(atOrAfter: StoreLayout.positionKey(position))
            if entry.map({ $0.key.count == 8 && $0.key.loadBigEndian(at: 0, as: UInt64.self) == position }) != true {
                // Not a transaction's first position: the base is the entry before.
                guard take(try entry == nil ? cursor.last() : cursor.previous()) else { return [] }
                entry = try cursor.next()
            }
            var ended = false
            while entries.count <= Self.ahead {
                guard take(entry) else { ended = true; break }
                entry = try cursor.next()
            }
            return entries.indices.compactMap { index in
                let upper = index + 1 < entries.count ? entries[index + 1].first : (ended ? UInt64.max : nil)
                guard let upper, entries[index].first < upper, entries[index].value.count == NonceBase.byteCount else { return nil }
                return (entries[index].first..<upper, NonceBase(bytes: entries[index].value))
            }
        }
    }
}
