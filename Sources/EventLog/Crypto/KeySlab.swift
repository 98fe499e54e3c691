internal import CSodium
import Foundation
import Synchronization

/// Many 32-byte keys in one `sodium_malloc`'d region: one mapping with guard pages for a thousand
/// keys, where a `sodium_malloc` per key costs several mappings and system calls each. A slot is
/// zeroed when its key is released. Slab keys are not made read-only (their neighbours change).
final class KeySlab: @unchecked Sendable {
    // @unchecked: `region` is a pointer; each slot is written only by the one key that owns it, before it
    // is handed out, and the free slots are the mutex's.
    static let slotBytes = 32
    static let slots = 1024

    private let region: UnsafeMutableRawPointer
    private let free: Mutex<[Int]>

    init() {
        Sodium.initialise()
        guard let region = sodium_malloc(Self.slotBytes * Self.slots) else {
            preconditionFailure("sodium_malloc of a key slab failed: out of memory")
        }
        self.region = region
        free = Mutex(Array((0..<Self.slots).reversed()))
    }

    deinit {
        sodium_free(region)  // zeroes the whole region
    }

    /// A key in a free slot, written by `fill`; nil when the slab is full or `fill` returns false.
    func key(_ fill: (UnsafeMutableRawBufferPointer) -> Bool) -> SecureBytes? {
        guard let slot = free.withLock({ $0.popLast() }) else { return nil }
        let bytes = UnsafeMutableRawBufferPointer(start: region + slot * Self.slotBytes, count: Self.slotBytes)
        guard fill(bytes) else {
            release(slot)
            return nil
        }
        return SecureBytes(slab: self, slot: slot, pointer: bytes.baseAddress!)
    }

    func release(_ slot: Int) {
        sodium_memzero(region + slot * Self.slotBytes, Self.slotBytes)
        free.withLock { $0.append(slot) }
    }
}
