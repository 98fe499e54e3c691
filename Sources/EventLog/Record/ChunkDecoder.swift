import Foundation

/// Opens a chunk of records read in one transaction on all cores, delivering results in order.
///
/// A read transaction must not be used by two threads at once, so the data keys and nonce bases the
/// chunk needs are looked up first, on the calling thread; the workers then only decrypt and decompress.
struct ChunkDecoder {
    typealias Entry = (position: UInt64, record: UnsafeRawBufferPointer)

    let opener: RecordOpener
    static let parallelThreshold = 64
    static let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))

    func decode(_ entries: [Entry], in txn: StoreTransaction) -> [Result<RecordedEvent, any Error>] {
        decode(entries, in: txn) { $0 }
    }

    /// Opens the records and applies `transform` to each, both on the workers.
    func decode<T>(_ entries: [Entry], in txn: StoreTransaction,
                   transform: @escaping @Sendable (RecordedEvent) throws -> T) -> [Result<T, any Error>] {
        guard entries.count >= Self.parallelThreshold, Self.workers > 1 else {
            return entries.map { entry in Result { try transform(try opener.open(entry.record, position: entry.position, in: txn)) } }
        }
        var keys: [UInt32: Result<SecureBytes?, any Error>] = [:]
        var bases: [NonceBase?] = []
        var baseCursor = NonceBaseCursor()
        bases.reserveCapacity(entries.count)
        for entry in entries {
            bases.append(try? baseCursor.base(for: entry.position, in: txn))
            guard entry.record.count >= RecordHeader.byteCount else { continue }
            try? opener.dictionaries.ensureLoaded(entry.record.loadBigEndian(at: 2), in: txn)
            let id: UInt32 = entry.record.loadBigEndian(at: 4)
            if keys[id] == nil { keys[id] = Result { try opener.keys.key(id, in: txn) } }
        }
        return parallelMap(count: entries.count, workers: Self.workers) { _, range in
            opener.decompressors.withDecompressor { decompressor in
                range.map { index in
                    let entry = entries[index]
                    return Result {
                        try transform(try opener.open(entry.record, position: entry.position, nonceBase: bases[index],
                                                      decompressor: decompressor) { id in
                            guard let key = keys[id] else { throw EventLogError.integrity(entry.position, "is malformed") }
                            return try key.get()
                        })
                    }
                }
            }
        }
    }
}
