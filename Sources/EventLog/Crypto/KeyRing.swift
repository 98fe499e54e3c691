import Foundation
import Synchronization

/// The store's data keys: created at random, kept wrapped (encrypted by the key-wrapping sub-key)
/// in the `keys` database, and cached unwrapped in secure memory while the store is open.
final class KeyRing: Sendable {
    static let auditKeyID: UInt32 = 1
    static let maximumCached = 4096

    private let hierarchy: KeyHierarchy
    private let storeID: [UInt8]
    private let cache = Mutex<[UInt32: SecureBytes]>([:])
    /// Where data keys live in memory: a few slabs rather than an allocation per key.
    private let slabs = Mutex<[KeySlab]>([])

    init(hierarchy: KeyHierarchy, storeID: [UInt8]) {
        self.hierarchy = hierarchy
        self.storeID = storeID
    }

    /// `"key" | store id | key id u32`: a wrapped key opens only in its own store and slot.
    private func additionalData(_ id: UInt32) -> [UInt8] {
        Array("key".utf8) + storeID + [UInt8](bigEndian: id)
    }

    /// Creates a fresh random data key under `id` and stores it wrapped.
    /// A key in a slab slot written by `fill` (nil when `fill` fails).
    private func slabKey(_ fill: (UnsafeMutableRawBufferPointer) -> Bool) -> SecureBytes? {
        for slab in slabs.withLock({ $0 }) {
            var failed = false
            if let key = slab.key({ out in
                let ok = fill(out)
                failed = !ok
                return ok
            }) { return key }
            if failed { return nil }  // the slab had room; the key did not authenticate
        }
        let slab = KeySlab()
        slabs.withLock { $0.append(slab) }
        return slab.key(fill)
    }

    func createKey(_ id: UInt32, in txn: StoreTransaction) throws -> SecureBytes {
        let key = slabKey { Sodium.randomBytes($0); return true }!
        let wrapped = key.withUnsafeBytes { AEAD.sealBox($0, additionalData: additionalData(id), key: hierarchy.keyWrapping) }
        try txn.put(StoreLayout.keys, [UInt8](bigEndian: id), wrapped)
        remember(id, key)
        return key
    }

    /// The data key `id`, or nil when it has been destroyed (in `txn`'s snapshot: a cached key is
    /// returned only while its wrapped entry is still there, so erasure by another process or
    /// another snapshot is seen at once).
    func key(_ id: UInt32, in txn: StoreTransaction) throws -> SecureBytes? {
        guard let wrapped = try txn.get(StoreLayout.keys, [UInt8](bigEndian: id)) else { return nil }
        if let cached = cache.withLock({ $0[id] }) { return cached }
        let aad = additionalData(id)
        guard wrapped.count == AEAD.nonceBytes + AEAD.keyBytes + AEAD.tagBytes, let key = slabKey({ out in
            aad.withUnsafeBytes { aad in
                AEAD.open(UnsafeRawBufferPointer(rebasing: wrapped[AEAD.nonceBytes...]), additionalData: aad,
                          nonce: UnsafeRawBufferPointer(rebasing: wrapped[..<AEAD.nonceBytes]), key: hierarchy.keyWrapping,
                          into: out)
            }
        }) else {
            throw EventLogError(.integrity, "wrapped data key \(id) does not authenticate")
        }
        remember(id, key)
        return key
    }

    /// Destroys the data key `id` in `txn`: its wrapped entry is overwritten with zeros and deleted.
    /// Returns whether it was there.
    @discardableResult
    func destroy(_ id: UInt32, in txn: StoreTransaction) throws -> Bool {
        precondition(id != Self.auditKeyID, "the audit key is never destroyed")
        let existed = try txn.scrubAndDelete(StoreLayout.keys, [UInt8](bigEndian: id))
        forget(id)
        return existed
    }

    /// Drops a key from the cache (after it was destroyed on disk, or a transaction that made it failed).
    func forget(_ id: UInt32) {
        cache.withLock { $0[id] = nil }
    }

    private func remember(_ id: UInt32, _ key: SecureBytes) {
        cache.withLock { cache in
            // Each key costs a few guarded pages; bound the cache instead of holding every key ever used.
            if cache.count >= Self.maximumCached { cache.removeAll(keepingCapacity: true) }
            cache[id] = key
        }
    }
}
