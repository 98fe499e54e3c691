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
    /// The offsets wanted of a record on its own: one array for all.
    private static let alone = [0]
    static let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))

    init(opener: RecordOpener) {
        self.opener = opener
    }

    /// Opens the records and applies `transform` to each, both on this thread and the workers (on this thread alone
    /// when `alone`, or for a chunk of fewer than ``parallelThreshold``). Each data key and nonce base is looked up once
    /// per chunk, not once per record: on PostgreSQL a lookup is a round trip.
    func decode<T>(_ entries: [Entry], in txn: StoreTransaction, alone: Bool = false,
                   transform: @escaping @Sendable (RecordedEvent) throws -> T) -> [Result<T, any Error>] {
        let (units, open) = openingEvents(entries, in: txn, transform: transform)
        let workers = alone || entries.count < Self.parallelThreshold ? 1 : Self.workers
        return parallelMap(count: units, workers: workers) { _, range in open(range) }
    }

    /// Hands each opened value to `body`, in order, without first gathering them into an array of their own (each is
    /// still bound as a copy, a retain of its fields: the release profile shows it); a failure is thrown, except
    /// that with `skippingErased` an event whose data key was destroyed is left out.
    static func handOn<T>(_ results: [Result<T, any Error>], skippingErased: Bool, to body: (T) throws -> Void) throws {
        for index in results.indices {
            switch results[index] {
            case .success(let value): try body(value)
            case .failure(let error as EventLogError) where skippingErased && error.code == .keyDestroyed: continue
            case .failure(let error): throw error
            }
        }
    }

    /// Starts checking the records on the workers as `verify` does (``RecordOpener/check(_:wanted:nonceBase:decompressor:key:dictionary:into:)``:
    /// everything opening them checks, without making events), once the transaction's lookups are done on this
    /// thread, and returns what waits for the results: this thread and the transaction are free meanwhile. Call the
    /// returned function once, before the transaction ends: the workers read its records.
    func startChecking(_ entries: [Entry], in txn: StoreTransaction) -> () -> [Result<(stream: StreamID, number: UInt64), any Error>] {
        let (units, check) = opening(entries, in: txn) { opener, unit, wanted, base, decompressor, key, dictionary, results in
            opener.check(unit, wanted: wanted, nonceBase: base, decompressor: decompressor, key: key, dictionary: dictionary,
                         into: &results)
        }
        let parts = start(entries.count, units: units, check)
        return { parts().flatMap { $0 } }
    }

    /// Runs `open` over every unit on the workers, in the background, and returns what waits for the results (each
    /// worker's, in order); a chunk of fewer than ``parallelThreshold`` records is opened here, at once.
    private func start<T>(_ records: Int, units: Int, _ open: @escaping (Range<Int>) -> [Result<T, any Error>]) -> () -> [[Result<T, any Error>]] {
        guard records >= Self.parallelThreshold, Self.workers > 1 else {
            let results = [open(0..<units)]
            return { results }
        }
        let background = BackgroundWork { parallelParts(count: units, workers: Self.workers) { _, range in open(range) } }
        return background.wait
    }

    /// ``opening(_:in:open:)`` making events of the records and applying `transform` to each.
    private func openingEvents<T>(_ entries: [Entry], in txn: StoreTransaction, transform: @escaping @Sendable (RecordedEvent) throws -> T)
        -> (units: Int, open: (Range<Int>) -> [Result<T, any Error>]) {
        opening(entries, in: txn) { opener, unit, wanted, base, decompressor, key, dictionary, results in
            opener.open(unit, wanted: wanted, nonceBase: base, decompressor: decompressor, key: key, dictionary: dictionary,
                        transform: transform, into: &results)
        }
    }

    /// The data keys and dictionaries of one chunk, looked up in its transaction before the workers start.
    private struct Lookups: Sendable {
        var keys: [UInt32: Result<SecureBytes?, any Error>] = [:]
        var dictionaries: [UInt16: CompressionDictionary] = [:]

        func key(_ id: UInt32) throws -> SecureBytes? {
            guard let key = keys[id] else { throw EventLogError(.integrity, "a record names data key \(id), which was not looked up") }
            return try key.get()
        }

        func dictionary(_ id: UInt16) -> CompressionDictionary? { dictionaries[id] }
    }

    /// Groups the chunk's records into the units they are opened in (a record alone, or its whole block: see
    /// ``SealedUnit``), looks up the chunk's data keys, dictionaries and nonce bases in `txn` (on this thread), and
    /// returns the number of units and what applies `open` to a range of them with those lookups, without the
    /// transaction: safe on several threads at once. Its results are one for each entry, in order.
    /// `open` is given the lookups as functions made once per range: a method of ``Lookups`` passed for each
    /// record would box the lookups anew each time (two allocations per record, a tenth of `verify`'s CPU).
    private func opening<T>(_ entries: [Entry], in txn: StoreTransaction,
                            open: @escaping @Sendable (RecordOpener, SealedUnit, [Int], NonceBase?, Decompressor,
                                                       (UInt32) throws -> SecureBytes?, @escaping (UInt16) -> CompressionDictionary?,
                                                       inout [Result<T, any Error>]) -> Void)
        -> (units: Int, open: (Range<Int>) -> [Result<T, any Error>]) {
        // The data keys of the chunk in one round trip on PostgreSQL (a failure shows in the lookups below).
        if txn.readsAhead {
            let keyIDs = Set(entries.compactMap { $0.record.count >= RecordHeader.byteCount ? $0.record.loadBigEndian(at: 4) as UInt32 : nil })
            try? txn.prefetch(StoreLayout.keys, keys: keyIDs.sorted().map { [UInt8](bigEndian: $0) })
        }
        let groups: [(unit: SealedUnit, entries: Range<Int>)]
        do {
            groups = try SealedUnit.group(entries, in: txn)
        } catch {
            return (1, { _ in entries.map { _ in .failure(error) } })
        }
        var lookups = Lookups()
        var bases: [NonceBase?] = []
        bases.reserveCapacity(groups.count)
        for group in groups { bases.append(try? self.bases.cursor.base(for: group.unit.position, in: txn)) }
        var previous: (dictionaryID: UInt16, keyID: UInt32)?  // neighbours mostly share both
        for entry in entries {
            guard entry.record.count >= RecordHeader.byteCount else { continue }
            let ids: (dictionaryID: UInt16, keyID: UInt32) = (entry.record.loadBigEndian(at: 2), entry.record.loadBigEndian(at: 4))
            guard previous.map({ $0 != ids }) ?? true else { continue }
            previous = ids
            if ids.dictionaryID != 0, lookups.dictionaries[ids.dictionaryID] == nil {
                try? opener.dictionaries.ensureLoaded(ids.dictionaryID, in: txn)
                lookups.dictionaries[ids.dictionaryID] = opener.dictionaries.dictionary(ids.dictionaryID)
            }
            if lookups.keys[ids.keyID] == nil { lookups.keys[ids.keyID] = Result { try opener.keys.key(ids.keyID, in: txn) } }
        }
        return (groups.count, { [opener, lookups, bases] range in
            let key = lookups.key, dictionary = lookups.dictionary
            return opener.decompressors.withDecompressor { decompressor in
                var results: [Result<T, any Error>] = []
                results.reserveCapacity(groups[range].reduce(0) { $0 + $1.entries.count })
                for index in range {
                    let (unit, served) = groups[index]
                    let wanted = unit.isSingle ? Self.alone : served.map { Int(entries[$0].position - unit.position) }
                    open(opener, unit, wanted, bases[index], decompressor, key, dictionary, &results)
                }
                return results
            }
        })
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
