import Foundation

/// One queued append and the caller waiting for it to be durable.
struct PendingAppend {
    var stream: StreamID
    var events: [ProposedEvent]
    var expectedVersion: ExpectedVersion
    var keyScope: KeyScope
    var deduplicate: Bool
    var continuation: CheckedContinuation<AppendResult, any Error>
}

/// Writes a batch of appends in one LMDB transaction. Used only by the writer thread.
///
/// Each append is checked against its expected version on its own: a refused append writes
/// nothing and does not affect the others in the batch. Stream rows and runs of recent appends are
/// kept in memory and written to the index only every ``StreamIndex/maximumTail`` events, so a
/// commit writes the log's own pages and not one index page per stream (see ``StreamIndex``).
final class BatchWriter {
    private let environment: LMDBEnvironment
    private let keys: KeyRing
    private let dictionaries: DictionarySet
    private let storeID: [UInt8]
    private let clock: @Sendable () -> Int64
    private let sealers: [RecordSealer]
    /// Batches at least this large are sealed on all cores.
    private static let parallelThreshold = 32

    /// The position the next event will take; advanced only when a transaction commits.
    private(set) var nextPosition: UInt64
    private var nextKeyID: UInt32
    /// The streams appended to since the index was last written, as they are now.
    private var pending: [StreamID: StreamChange] = [:]
    /// False after a failed transaction: `pending` may hold its changes and is reloaded from disk.
    private var pendingIsCurrent = false

    init(environment: LMDBEnvironment, keys: KeyRing, dictionaries: DictionarySet, storeID: [UInt8],
         clock: @escaping @Sendable () -> Int64) throws {
        self.environment = environment
        self.keys = keys
        self.dictionaries = dictionaries
        self.storeID = storeID
        self.clock = clock
        sealers = (0..<max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))).map { _ in RecordSealer() }
        (nextPosition, nextKeyID) = try environment.read(Self.committedCounters)
    }

    /// The next position and the next data key id as committed.
    private static func committedCounters(in txn: LMDBTransaction) throws -> (UInt64, UInt32) {
        let last = try txn.withCursor(StoreLayout.events) { try $0.last() }
        let next = last.map { $0.key.loadBigEndian(at: 0, as: UInt64.self) + 1 } ?? 0
        guard let keyID = try txn.get(StoreLayout.meta, StoreLayout.nextKeyIDKey), keyID.count == 4 else {
            throw EventLogError(.storeUnusable, "the store's meta database lacks next-key-id")
        }
        return (next, keyID.loadBigEndian(at: 0, as: UInt32.self))
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

    /// Writes the batch; returns one result per append, in order.
    func write(_ batch: [PendingAppend]) -> [Result<AppendResult, EventLogError>] {
        var createdKeys: [UInt32] = []
        do {
            let (results, position, keyID) = try environment.write { txn in
                createdKeys.forEach(keys.forget)
                createdKeys = []
                return try write(batch, in: txn, createdKeys: &createdKeys)
            }
            nextPosition = position
            nextKeyID = keyID
            pendingIsCurrent = true
            return results
        } catch {
            createdKeys.forEach(keys.forget)
            let failure = EventLogError.storage(error)
            return batch.map { _ in .failure(failure) }
        }
    }

    /// Writes every pending stream row and run to the index (when the log is closed).
    func flushIndex() throws {
        try environment.write { txn in
            try preparePending(in: txn)
            try writeIndex(through: nextPosition, in: txn)
        }
        pendingIsCurrent = true
    }

    /// Makes the writer's state match the committed log: on the first write, after a failed
    /// transaction, and when another process has appended since this writer's last commit (LMDB
    /// serialises writers across processes; the check costs two lookups per transaction).
    private func preparePending(in txn: LMDBTransaction) throws {
        let (committedNext, committedKeyID) = try Self.committedCounters(in: txn)
        if pendingIsCurrent, committedNext == nextPosition, committedKeyID == nextKeyID {
            pendingIsCurrent = false  // until this transaction commits
            return
        }
        pendingIsCurrent = false
        nextPosition = committedNext
        nextKeyID = committedKeyID
        pending = [:]
        for entry in try StreamIndex.tail(in: txn) {
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

    private func writeIndex(through position: UInt64, in txn: LMDBTransaction) throws {
        for (stream, change) in pending {
            if change.isNew { try txn.put(StoreLayout.streams, stream.uuid.bytes, change.state.row.bytes) }
            for run in change.runsToWrite.values { try run.write(stream, in: txn) }
        }
        pending = [:]
        try txn.put(StoreLayout.meta, StoreLayout.indexedThroughKey, [UInt8](bigEndian: position))
    }

    private func write(_ batch: [PendingAppend], in txn: LMDBTransaction, createdKeys: inout [UInt32])
        throws -> ([Result<AppendResult, EventLogError>], UInt64, UInt32) {
        try preparePending(in: txn)
        let now = clock()
        var position = nextPosition
        var keyID = nextKeyID
        var jobs: [SealJob] = []
        var results: [Result<AppendResult, EventLogError>] = []
        results.reserveCapacity(batch.count)

        for var append in batch {
            var duplicates = 0
            if append.deduplicate {
                // Drop events whose ids the stream holds already (committed, or earlier in this batch).
                var known = try StreamIndex.eventIDs(of: append.stream, in: txn)
                for job in jobs where job.stream == append.stream.uuid { known.insert(job.event.id) }
                let fresh = append.events.filter { known.insert($0.id).inserted }
                duplicates = append.events.count - fresh.count
                if fresh.isEmpty, duplicates > 0 {
                    let version = try pending[append.stream]?.state.version ?? StreamState.read(append.stream, in: txn)?.version ?? 0
                    results.append(.success(AppendResult(nextExpectedVersion: version, positions: position..<position,
                                                         duplicates: duplicates)))
                    continue
                }
                append.events = fresh
            }
            var change = try pending[append.stream]
                ?? StreamState.read(append.stream, in: txn).map { StreamChange(state: $0, isNew: false) }
            let version = change?.state.version ?? 0
            guard append.expectedVersion.admits(currentVersion: version) else {
                var error = EventLogError(
                    .wrongExpectedVersion,
                    "append to stream \(append.stream) expected \(append.expectedVersion) but the stream is at version \(version)",
                    stream: append.stream)
                error.expectedVersion = append.expectedVersion
                error.actualVersion = version
                results.append(.failure(error))
                continue
            }
            guard !append.events.isEmpty else {
                results.append(.success(AppendResult(nextExpectedVersion: version, positions: position..<position)))
                continue
            }
            let count = UInt64(append.events.count)
            let key: SecureBytes
            if var existing = change {
                guard let found = try keys.key(existing.state.row.keyID, in: txn) else {
                    results.append(.failure(EventLogError(
                        .keyDestroyed, "stream \(append.stream) was erased (its data key is destroyed); nothing can be appended to it",
                        stream: append.stream)))
                    continue
                }
                key = found
                existing.append(count, at: position)
                change = existing
            } else {
                let id: UInt32
                switch append.keyScope {
                case .audit:
                    id = KeyRing.auditKeyID
                    guard let audit = try keys.key(id, in: txn) else {
                        throw EventLogError(.storeUnusable, "the store's audit key is missing")
                    }
                    key = audit
                case .stream:
                    id = keyID
                    keyID += 1
                    key = try keys.createKey(id, in: txn)
                    createdKeys.append(id)
                }
                change = .new(StreamRow(createdAtMilliseconds: now, keyID: id, firstPosition: position), count: count)
            }
            guard let change else { preconditionFailure("every path above sets the change") }
            for (offset, event) in append.events.enumerated() {
                jobs.append(SealJob(event: event, stream: append.stream.uuid, streamNumber: version + UInt64(offset),
                                    position: position + UInt64(offset), keyID: change.state.row.keyID, key: key,
                                    recordedAtMilliseconds: now))
            }
            pending[append.stream] = change
            results.append(.success(AppendResult(nextExpectedVersion: change.state.version, positions: position..<(position + count),
                                                 duplicates: duplicates)))
            position += count
        }

        var totals = try StoreTotals.read(in: txn)
        let nonceBase = NonceBase.random()
        if let first = jobs.first { try nonceBase.write(firstPosition: first.position, in: txn) }
        let records = seal(jobs, nonceBase: nonceBase)
        for (job, record) in zip(jobs, records) {
            try txn.put(StoreLayout.events, StoreLayout.positionKey(job.position), record, append: true)
            totals.recordBytes += UInt64(record.count)
            totals.bodyBytes += UInt64(1 + job.event.type.utf8.count + job.event.data.count)
            totals.compressedBytes += UInt64(record.count - RecordLayout.minimumCount)
        }
        if position - (try StreamIndex.indexedThrough(in: txn)) >= StreamIndex.maximumTail {
            try writeIndex(through: position, in: txn)
        }
        if keyID != nextKeyID { try txn.put(StoreLayout.meta, StoreLayout.nextKeyIDKey, [UInt8](bigEndian: keyID)) }
        if !jobs.isEmpty { try totals.write(in: txn) }
        return (results, position, keyID)
    }

    /// Seals every job, on all sealers at once when the batch is large enough.
    private func seal(_ jobs: [SealJob], nonceBase: NonceBase) -> [[UInt8]] {
        guard !jobs.isEmpty else { return [] }
        let workers = jobs.count >= Self.parallelThreshold ? sealers.count : 1
        var records = [[UInt8]](repeating: [], count: jobs.count)
        records.withUnsafeMutableBufferPointer { out in
            let work = ParallelSeal(jobs: jobs, sealers: sealers, output: out, nonceBase: nonceBase,
                                    storeID: storeID, dictionary: dictionaries.current,
                                    share: (jobs.count + workers - 1) / workers)
            DispatchQueue.concurrentPerform(iterations: workers) { work.run(worker: $0) }
        }
        return records
    }
}

/// What the sealing workers of one batch share.
private struct ParallelSeal: @unchecked Sendable {
    // @unchecked: worker `w` uses only `sealers[w]` and writes only its own slice of `output`;
    // everything else is read-only while the workers run.
    let jobs: [SealJob]
    let sealers: [RecordSealer]
    let output: UnsafeMutableBufferPointer<[UInt8]>
    let nonceBase: NonceBase
    let storeID: [UInt8]
    let dictionary: CompressionDictionary?
    let share: Int

    func run(worker: Int) {
        let sealer = sealers[worker]
        for index in (worker * share)..<min(jobs.count, (worker + 1) * share) {
            output[index] = sealer.seal(jobs[index], storeID: storeID, dictionary: dictionary, nonceBase: nonceBase)
        }
    }
}
