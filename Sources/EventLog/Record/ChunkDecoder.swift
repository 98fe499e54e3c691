import Foundation

/// Opens a chunk of records read in one transaction on all cores, delivering results in order.
///
/// A read transaction must not be used by two threads at once, so the data keys and nonce bases the
/// chunk needs are looked up first, on the calling thread; the workers then only decrypt and decompress.
struct ChunkDecoder {
    typealias Entry = (position: UInt64, record: UnsafeRawBufferPointer)

    let opener: RecordOpener
    /// The nonce bases found so far, kept from chunk to chunk of the one read transaction a decoder serves.
    private let bases = NonceBases()

    private final class NonceBases {
        var cursor = NonceBaseCursor()
    }

    static let parallelThreshold = 64
    static let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))

    init(opener: RecordOpener) {
        self.opener = opener
    }

    func decode(_ entries: [Entry], in txn: StoreTransaction) -> [Result<RecordedEvent, any Error>] {
        decode(entries, in: txn) { $0 }
    }

    /// Opens the records and applies `transform` to each, both on the workers (on this thread for a chunk
    /// of fewer than ``parallelThreshold``). `whileDecoding` runs once the transaction's lookups are done and
    /// before the workers start (a walk's ``StorageCursor/readAhead()``). Each data key and nonce base is
    /// looked up once per chunk, not once per record: on PostgreSQL a lookup is a round trip.
    func decode<T>(_ entries: [Entry], in txn: StoreTransaction, whileDecoding: () -> Void = {},
                   transform: @escaping @Sendable (RecordedEvent) throws -> T) -> [Result<T, any Error>] {
        let open = opening(entries, in: txn, transform: transform)
        whileDecoding()
        let workers = entries.count >= Self.parallelThreshold ? Self.workers : 1
        return parallelMap(count: entries.count, workers: workers) { _, range in open(range) }
    }

    /// Starts opening the records and applying `transform` on the workers, once the transaction's lookups are
    /// done on this thread, and returns what waits for the results: this thread and the transaction are free
    /// meanwhile (to check the chunk before in order, to read the next). A chunk of fewer than
    /// ``parallelThreshold`` records is opened here, at once. Call the returned function once, before the
    /// transaction ends: the workers read its records.
    func start<T>(_ entries: [Entry], in txn: StoreTransaction,
                  transform: @escaping @Sendable (RecordedEvent) throws -> T) -> () -> [Result<T, any Error>] {
        let open = opening(entries, in: txn, transform: transform)
        guard entries.count >= Self.parallelThreshold, Self.workers > 1 else {
            let results = open(0..<entries.count)
            return { results }
        }
        let background = BackgroundWork { parallelMap(count: entries.count, workers: Self.workers) { _, range in open(range) } }
        return background.wait
    }

    /// Looks up the chunk's data keys and nonce bases in `txn` (on this thread), and returns what opens a
    /// range of the chunk with them, without the transaction: safe on several threads at once.
    private func opening<T>(_ entries: [Entry], in txn: StoreTransaction,
                            transform: @escaping @Sendable (RecordedEvent) throws -> T) -> (Range<Int>) -> [Result<T, any Error>] {
        // The data keys of the chunk in one round trip on PostgreSQL (a failure shows in the lookups below).
        let keyIDs = Set(entries.compactMap { $0.record.count >= RecordHeader.byteCount ? $0.record.loadBigEndian(at: 4) as UInt32 : nil })
        try? txn.prefetch(StoreLayout.keys, keys: keyIDs.sorted().map { [UInt8](bigEndian: $0) })
        var keys: [UInt32: Result<SecureBytes?, any Error>] = [:]
        var bases: [NonceBase?] = []
        bases.reserveCapacity(entries.count)
        for entry in entries {
            bases.append(try? self.bases.cursor.base(for: entry.position, in: txn))
            guard entry.record.count >= RecordHeader.byteCount else { continue }
            try? opener.dictionaries.ensureLoaded(entry.record.loadBigEndian(at: 2), in: txn)
            let id: UInt32 = entry.record.loadBigEndian(at: 4)
            if keys[id] == nil { keys[id] = Result { try opener.keys.key(id, in: txn) } }
        }
        return { [opener, keys, bases] range in
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

/// Work started on another thread at once, whose result another thread waits for.
private final class BackgroundWork<T>: @unchecked Sendable {
    // @unchecked: `result` is written once, by the work's thread, before `done` is signalled, and read only after
    // waiting for it; the work may capture values that are not Sendable, which only it uses until then.
    private let done = DispatchSemaphore(value: 0)
    private var result: T?

    init(_ work: @escaping () -> T) {
        let box = UncheckedSendable(work)
        DispatchQueue.global().async { [self] in
            result = box.value()
            done.signal()
        }
    }

    /// The work's result, once it is done; at once when waited for before.
    func wait() -> T {
        done.wait()
        done.signal()
        return result!
    }
}

private struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
