import Foundation

/// One queued group of appends, atomic together, and the caller waiting for it to be durable.
struct PendingAppend {
    var parts: [StreamAppend]
    var continuation: CheckedContinuation<[AppendResult], any Error>

    var eventCount: Int { parts.reduce(0) { $0 + $1.events.count } }
}

/// Writes a batch of appends in one LMDB transaction. Used only by the writer thread.
///
/// Each append is checked against its expected version on its own: a refused append writes
/// nothing and does not affect the others in the batch. Stream rows and runs of recent appends are
/// kept in memory and written to the index only every ``StoreEnvironment/maximumIndexTail`` events, so a
/// commit writes the log's own pages and not one index page per stream (see ``StreamIndex``).
final class BatchWriter {
    private let environment: StoreEnvironment
    let keys: KeyRing
    private let dictionaries: DictionarySet
    private let storeID: [UInt8]
    let clock: @Sendable () -> Int64
    private let sealers: [RecordSealer]
    /// The most body bytes one block of records holds (``EventLogOptions/blockBodyBytes``).
    private let blockBodyBytes: Int
    /// Batches at least this large are sealed on all cores.
    private static let parallelThreshold = 32

    /// The position the next event will take; advanced only when a transaction commits.
    private(set) var nextPosition: UInt64
    private(set) var nextKeyID: UInt32
    /// The last committed record's authentication tag (its last 16 bytes, unique to it), so that a log
    /// that lost commits and grew back to the same length (a failover to a standby that was behind) is
    /// not mistaken for the one this writer last saw.
    private(set) var lastRecordTag: [UInt8]
    /// The streams appended to recently, as they are now: those appended to since the index was last
    /// written with what the index lacks, and up to ``rememberedStreams`` more as the index has them, so
    /// that appending to them again reads nothing back (on PostgreSQL, three queries per stream).
    var pending: [StreamID: StreamChange] = [:]
    private static let rememberedStreams = 4096
    /// False after a failed transaction: `pending` may hold its changes and is reloaded from disk.
    private var pendingIsCurrent = false
    /// The whole tail as the running transaction found it, when it had to read it (``preparePending(in:)``):
    /// what the ``TailDirectory`` starts again from.
    private var rescannedTail: (indexedThrough: UInt64, entries: [StreamIndex.TailEntry])?

    init(environment: StoreEnvironment, keys: KeyRing, dictionaries: DictionarySet, storeID: [UInt8],
         clock: @escaping @Sendable () -> Int64, blockBodyBytes: Int) throws {
        self.environment = environment
        self.keys = keys
        self.dictionaries = dictionaries
        self.storeID = storeID
        self.clock = clock
        self.blockBodyBytes = blockBodyBytes
        sealers = (0..<max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))).map { _ in RecordSealer() }
        (nextPosition, nextKeyID, lastRecordTag) = try environment.read(Self.committedCounters)
    }

    /// The next position and the next data key id as committed.
    private static func committedCounters(in txn: StoreTransaction) throws -> (UInt64, UInt32, [UInt8]) {
        let (next, tag) = try txn.withCursor(StoreLayout.events) { cursor in
            guard let last = try cursor.last() else { return (UInt64(0), [UInt8]()) }
            return (try StoreLayout.position(ofKey: last.key) + 1, Self.tag(of: last.value))
        }
        guard let keyID = try txn.get(StoreLayout.meta, StoreLayout.nextKeyIDKey), keyID.count == 4 else {
            throw EventLogError(.storeUnusable, "the store's meta database lacks next-key-id")
        }
        return (next, keyID.loadBigEndian(at: 0, as: UInt32.self), tag)
    }

    /// A record's last 16 bytes, unique to it: its authentication tag, or for a record of a block after the first, the
    /// end of its leaf hash and its distance to the first (docs/FORMAT.md §5).
    static func tag(of record: some ContiguousBytes) -> [UInt8] {
        record.withUnsafeBytes { Array($0.suffix(16)) }
    }

    /// A stream touched since the index was written: its state now, and the runs the index lacks.
    struct StreamChange {
        var state: StreamState
        var isNew: Bool
        var runsToWrite: [UInt64: StreamRun] = [:]

        /// Records `count` events appended at `position`: extends the last run when they follow it
        /// directly in the log, else starts a new one.
        mutating func append(_ count: UInt64, at position: UInt64) {
            var last = state.lastRun
            if last.position(of: last.numbers.upperBound - 1) + 1 == position, UInt64(last.count) + count <= UInt64(UInt32.max) {
                last.count += UInt32(count)
            } else {
                last = StreamRun(firstNumber: state.version, firstPosition: position, count: UInt32(count))
            }
            state.lastRun = last
            runsToWrite[last.firstNumber] = last
        }

        static func new(_ row: StreamRow, count: UInt64) -> StreamChange {
            let run = StreamRun(firstNumber: 0, firstPosition: row.firstPosition, count: UInt32(count))
            return StreamChange(state: StreamState(row: row, lastRun: run), isNew: true, runsToWrite: [0: run])
        }
    }

    /// Writes the batch; returns one result per group of appends, in order.
    func write(_ batch: [PendingAppend]) -> [Result<[AppendResult], EventLogError>] {
        let written = transaction(readingAhead: readsAhead(for: batch), rerunnable: true) { appender in
            try batch.map { group in try appender.apply(group.parts) }
        }
        switch written {
        case .success(let results): return results
        case .failure(let error):
            let failure = EventLogError.storage(error)
            return batch.map { _ in .failure(failure) }
        }
    }

    /// What appending `batch` looks up, to read ahead with BEGIN: the data keys of the streams the writer
    /// knows (an append checks that its key is not destroyed), the rows of the others (whether they
    /// exist), the event-ids entries of de-duplicated events, and what the Merkle tree needs to take the
    /// events. On PostgreSQL, no round trip of its own, where it was one per stream and one more for the tree.
    private func readsAhead(for batch: [PendingAppend]) -> KeyReads {
        var keyIDs: Set<UInt32> = []
        var unknown: Set<StreamID> = []
        for stream in batch.flatMap({ $0.parts.map(\.stream) }) {
            if let keyID = pending[stream]?.state.row.keyID { keyIDs.insert(keyID) } else { unknown.insert(stream) }
        }
        let eventCount = UInt64(batch.reduce(0) { $0 + $1.eventCount })
        let eventIDs = batch.flatMap(\.parts).filter(\.deduplicate).flatMap { part in
            part.events.map { StoreLayout.eventIDKey(part.stream.uuid, $0.id) }
        }
        return [(StoreLayout.keys, keyIDs.sorted().map { [UInt8](bigEndian: $0) }), (StoreLayout.streams, unknown.map(\.uuid.bytes)),
                (StoreLayout.eventIDs, eventIDs)]
            + MerkleNodes.reads(extendingFrom: nextPosition, to: nextPosition + eventCount)
    }

    /// Runs `body` in one write transaction and commits what it appended; on any error, nothing.
    /// A `rerunnable` body runs again from the start when LMDB's map must grow; any other is refused
    /// then. Storage failures become ``EventLogError``; errors `body` throws pass through unchanged.
    func transaction<T>(readingAhead reads: KeyReads = [], rerunnable: Bool,
                        _ body: (TransactionAppender) throws -> T) -> Result<T, any Error> {
        var createdKeys: [UInt32] = []
        var tail: (start: UInt64, appended: [StreamIndex.TailEntry], foldedThrough: UInt64?) = (0, [], nil)
        do {
            let (value, position, keyID, tag) = try environment.write(readingAhead: reads, rerunnable: rerunnable) { txn in
                createdKeys.forEach(keys.forget)
                createdKeys = []
                rescannedTail = nil
                let appender = try TransactionAppender(writer: self, txn: txn)
                defer { createdKeys = appender.state.createdKeys }
                let start = appender.state.position
                let value = try body(appender)
                try appender.finish()
                tail = (start, appender.appendedTail, appender.foldedThrough)
                return (value, appender.state.position, appender.state.keyID, appender.state.lastRecordTag)
            }
            nextPosition = position
            nextKeyID = keyID
            lastRecordTag = tag
            pendingIsCurrent = true
            environment.tailDirectory?.committed(from: tail.start, rescanned: rescannedTail, appended: tail.appended, through: position,
                                                 foldedThrough: tail.foldedThrough)
            return .success(value)
        } catch {
            createdKeys.forEach(keys.forget)
            return .failure(StoreEnvironment.isStorageError(error) ? EventLogError.storage(error) : error)
        }
    }

    /// How many events the stream index may lag the log before the writer folds them in.
    var maximumIndexTail: UInt64 { environment.maximumIndexTail }

    /// Writes every pending stream row and run to the index (when the log is closed).
    func flushIndex() throws {
        environment.tailDirectory?.forget()
        try environment.write { txn in
            try preparePending(in: txn)
            try writeIndex(through: nextPosition, in: txn)
        }
        pendingIsCurrent = true
    }

    /// Makes the writer's state match the committed log: on the first write, after a failed
    /// transaction, and when another process has appended since this writer's last commit (LMDB
    /// serialises writers across processes; the check costs two lookups per transaction).
    func preparePending(in txn: StoreTransaction) throws {
        let (committedNext, committedKeyID, committedTag) = try Self.committedCounters(in: txn)
        if pendingIsCurrent, committedNext == nextPosition, committedKeyID == nextKeyID, committedTag == lastRecordTag {
            pendingIsCurrent = false  // until this transaction commits
            return
        }
        pendingIsCurrent = false
        nextPosition = committedNext
        nextKeyID = committedKeyID
        lastRecordTag = committedTag
        pending = [:]
        let tail = try StreamIndex.tail(in: txn)
        rescannedTail = (try StreamIndex.indexedThrough(in: txn), tail)
        for entry in tail {
            let stream = StreamID(entry.header.stream)
            if var change = try pending[stream] ?? StreamState.read(stream, in: txn).map({ StreamChange(state: $0, isNew: false) }) {
                change.append(1, at: entry.position)
                pending[stream] = change
            } else {
                let row = StreamRow(createdAtMilliseconds: entry.header.recordedAtMilliseconds, keyID: entry.header.keyID,
                                    firstPosition: entry.position)
                pending[stream] = .new(row, count: 1)
            }
        }
    }

    func writeIndex(through position: UInt64, in txn: StoreTransaction) throws {
        let indexed = try StreamIndex.indexedThrough(in: txn)
        try StreamIndex.indexEventIDs(indexed..<max(indexed, position), in: txn)
        for (stream, change) in pending {
            if change.isNew { try txn.put(StoreLayout.streams, stream.uuid.bytes, change.state.row.bytes) }
            for run in change.runsToWrite.values { try run.write(stream, in: txn) }
        }
        pending = pending.count > Self.rememberedStreams ? [:] : pending.mapValues { StreamChange(state: $0.state, isNew: false) }
        try txn.put(StoreLayout.meta, StoreLayout.indexedThroughKey, [UInt8](bigEndian: position))
    }

    /// Seals every job, consecutive events of one stream together as blocks, on all sealers at once when the batch is
    /// large enough; one record for each job, in order.
    func seal(_ jobs: [SealJob], nonceBase: NonceBase) -> [[UInt8]] {
        let dictionary = dictionaries.current
        let blocks = RecordBlocks.ranges(of: jobs, bodyBytes: blockBodyBytes)
        let workers = jobs.count >= Self.parallelThreshold ? sealers.count : 1
        return parallelMap(count: blocks.count, workers: workers) { worker, range in
            let sealer = sealers[worker]
            return range.flatMap { sealer.seal(jobs[blocks[$0]], storeID: storeID, dictionary: dictionary, nonceBase: nonceBase) }
        }
    }
}
