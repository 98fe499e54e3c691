import Foundation

/// Bytes a memory store holds: made once, never changed, and zeroed when the last table that holds
/// them lets go (so that a destroyed key leaves no copy in the process's memory).
final class MemoryBytes: @unchecked Sendable {
    // @unchecked: the buffer is written only in init and deinit, when nothing else can reach it.
    private let buffer: UnsafeMutableRawBufferPointer

    init(_ bytes: UnsafeRawBufferPointer) {
        buffer = .allocate(byteCount: max(bytes.count, 1), alignment: 16)
        if let base = bytes.baseAddress, !bytes.isEmpty { buffer.baseAddress!.copyMemory(from: base, byteCount: bytes.count) }
        count = bytes.count
    }

    deinit {
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        buffer.deallocate()
    }

    let count: Int

    /// The bytes, valid while this object lives.
    var view: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: buffer.baseAddress, count: count) }
}

/// One table of a memory store: keys in unsigned byte order, each with its value. A value type, so a
/// transaction's copy is a snapshot; writing a table copies it once per transaction (O(n)), which is
/// what a store for tests and for the layers above can afford.
struct MemoryTable {
    private(set) var keys: [MemoryBytes] = []
    private(set) var values: [MemoryBytes] = []

    var count: Int { keys.count }

    /// The index of the first key at or after `key`, and whether it is `key`.
    func index(atOrAfter key: UnsafeRawBufferPointer) -> (index: Int, found: Bool) {
        var low = 0, high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if Self.compare(keys[middle].view, key) < 0 { low = middle + 1 } else { high = middle }
        }
        return (low, low < keys.count && Self.compare(keys[low].view, key) == 0)
    }

    /// The index of the first key after `key`.
    func index(after key: UnsafeRawBufferPointer) -> Int {
        let (index, found) = index(atOrAfter: key)
        return found ? index + 1 : index
    }

    func value(for key: UnsafeRawBufferPointer) -> MemoryBytes? {
        let (index, found) = index(atOrAfter: key)
        return found ? values[index] : nil
    }

    mutating func set(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) {
        let (index, found) = index(atOrAfter: key)
        if found {
            values[index] = MemoryBytes(value)
        } else {
            keys.insert(MemoryBytes(key), at: index)
            values.insert(MemoryBytes(value), at: index)
        }
    }

    mutating func remove(_ key: UnsafeRawBufferPointer) -> Bool {
        let (index, found) = index(atOrAfter: key)
        guard found else { return false }
        keys.remove(at: index)
        values.remove(at: index)
        return true
    }

    /// Bytes of keys and values.
    var byteCount: Int { zip(keys, values).reduce(0) { $0 + $1.0.count + $1.1.count } }

    /// Unsigned byte order, a shorter key first when it is a prefix of the other (LMDB's and
    /// PostgreSQL's `bytea` order).
    static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let common = min(a.count, b.count)
        if common > 0 {
            let order = memcmp(a.baseAddress!, b.baseAddress!, common)
            if order != 0 { return Int(order) }
        }
        return a.count - b.count
    }
}
