import Foundation

/// Decompression contexts shared by reading threads: each read borrows one and returns it.
final class DecompressorPool: @unchecked Sendable {
    // @unchecked: `idle` is guarded by `lock`; a borrowed context is used by one thread at a time. Not a
    // `Mutex`: a context is not Sendable, and handing one in and out of a mutex's region is what it refuses.
    private let lock = NSLock()
    private var idle: [Decompressor] = []

    func withDecompressor<R>(_ body: (Decompressor) throws -> R) rethrows -> R {
        lock.lock()
        let decompressor = idle.popLast() ?? Decompressor()
        lock.unlock()
        defer {
            lock.lock()
            if idle.count < 8 { idle.append(decompressor) }
            lock.unlock()
        }
        return try body(decompressor)
    }
}
