internal import CSodium

/// Secret bytes (a key) in `sodium_malloc`'d memory: guarded, locked out of swap where the system
/// allows, and zeroed when released.
final class SecureBytes: @unchecked Sendable {
    // @unchecked: the bytes are written only while the initialiser runs and are read-only after.
    let count: Int
    private let pointer: UnsafeMutableRawPointer
    /// When the bytes live in a slot of a ``KeySlab`` rather than an allocation of their own.
    private let slab: (owner: KeySlab, slot: Int)?

    /// Allocates `count` bytes and lets `fill` write them.
    init(count: Int, fill: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        Sodium.initialise()
        guard let pointer = sodium_malloc(count) else {
            preconditionFailure("sodium_malloc(\(count)) failed: out of memory")
        }
        self.pointer = pointer
        self.count = count
        self.slab = nil
        // Every stored property is set: if `fill` throws, deinit runs and frees the memory.
        try fill(UnsafeMutableRawBufferPointer(start: pointer, count: count))
        sodium_mprotect_readonly(pointer)
    }

    static func random(count: Int) -> SecureBytes {
        SecureBytes(count: count) { Sodium.randomBytes($0) }
    }

    /// A key in a slab slot, already written; the slot is zeroed and freed with this object.
    init(slab: KeySlab, slot: Int, pointer: UnsafeMutableRawPointer) {
        self.pointer = pointer
        self.count = KeySlab.slotBytes
        self.slab = (slab, slot)
    }

    deinit {
        if let slab {
            slab.owner.release(slab.slot)
        } else {
            sodium_free(pointer)  // zeroes before freeing
        }
    }

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    var baseAddress: UnsafePointer<UInt8> { UnsafePointer(pointer.assumingMemoryBound(to: UInt8.self)) }
}
