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

/// Finds the nonce base of positions read in ascending order, seeking only when a position leaves
/// the current transaction's range. Lives inside one read transaction.
struct NonceBaseCursor {
    private var current: (range: Range<UInt64>, base: NonceBase)?

    /// The base for `position`; nil when the store has none (a damaged store).
    mutating func base(for position: UInt64, in txn: StoreTransaction) throws -> NonceBase? {
        if let current, current.range.contains(position) { return current.base }
        current = try txn.withCursor(StoreLayout.nonceBases) { cursor in
            // The base is the entry with the greatest first position <= position.
            var entry = try cursor.seek(atOrAfter: StoreLayout.positionKey(position))
            var upper = UInt64.max
            if let found = entry, found.key.count == 8, found.key.loadBigEndian(at: 0, as: UInt64.self) == position {
                // exact: this transaction starts at `position`
            } else {
                if let found = entry, found.key.count == 8 { upper = found.key.loadBigEndian(at: 0) }
                entry = try entry == nil ? cursor.last() : cursor.previous()
            }
            guard let (key, value) = entry, key.count == 8, value.count == NonceBase.byteCount else { return nil }
            let first: UInt64 = key.loadBigEndian(at: 0)
            if upper == .max, let next = try cursor.next(), next.key.count == 8 { upper = next.key.loadBigEndian(at: 0) }
            guard first <= position, position < upper else { return nil }
            return (first..<upper, NonceBase(bytes: Array(value)))
        }
        return current?.base
    }
}
