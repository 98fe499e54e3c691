import Foundation

/// Appends made one group after another inside one write transaction, for
/// ``EventLog/appendInOneTransaction(_:)``: sealed records are written as they come, so memory holds
/// one group's events rather than the whole transaction's, and nothing is visible to readers (or
/// durable) until the transaction commits.
///
/// Lives on the writer thread, inside the transaction; it must not escape the body it is passed to.
public final class TransactionAppender {
    private unowned let writer: BatchWriter
    private let txn: StoreTransaction
    /// The log appended to, for reads in the transaction; set before the body runs.
    var log: EventLog!
    private(set) var state: BatchState
    private var totals: StoreTotals
    private var nonceBase: NonceBase?
    /// Records before this position are written to the transaction; jobs from it on are queued.
    private var writtenThrough: UInt64
    /// Queued records are sealed and written once this many are queued.
    private static let writeThreshold = 2048
    /// Records are sealed (on all cores) and written this many at a time.
    private static let sealingSlice = 256
    /// The tail entries of the records written, for the writer's ``TailDirectory``.
    private(set) var appendedTail: [StreamIndex.TailEntry] = []
    /// Where this transaction folded the tail into the stream index, if it did.
    private(set) var foldedThrough: UInt64?

    init(writer: BatchWriter, txn: StoreTransaction) throws {
        self.writer = writer
        self.txn = txn
        try writer.preparePending(in: txn)
        state = BatchState(position: writer.nextPosition, keyID: writer.nextKeyID, now: writer.clock(), lastRecordTag: writer.lastRecordTag)
        totals = try StoreTotals.read(in: txn)
        writtenThrough = state.position
    }

    /// Appends to several streams as ``EventLog/append(_:)`` does, within this transaction: every
    /// part, or (when one is refused) none of them, and then this throws that part's error. A body
    /// that lets the error escape aborts the whole transaction.
    public func append(_ parts: [StreamAppend]) throws -> [AppendResult] {
        try EventLog.checkStorable(parts)
        return try apply(parts).get()
    }

    /// Applies one group; a refusal leaves the transaction as it was before the group.
    func apply(_ parts: [StreamAppend]) throws -> Result<[AppendResult], EventLogError> {
        let result = try writer.apply(parts, to: &state, in: txn)
        if state.jobs.count >= Self.writeThreshold { try writeQueuedRecords() }
        return result
    }

    /// Seals the queued records and writes them, with the tree nodes and index entries they complete.
    fileprivate func writeQueuedRecords() throws {
        guard !state.jobs.isEmpty else { return }
        let base: NonceBase
        if let nonceBase {
            base = nonceBase
        } else {
            base = NonceBase.random()
            try base.write(firstPosition: state.jobs[0].position, in: txn)
            nonceBase = base
        }
        // What the Merkle tree reads, before the first record is written: on PostgreSQL, a read ends the
        // COPY the records stream through.
        try txn.prefetch(MerkleNodes.reads(extendingFrom: writtenThrough, to: state.position))
        var records: [[UInt8]] = []
        records.reserveCapacity(state.jobs.count)
        // A slice is written before the next is sealed: PostgreSQL stores one while the next is sealed.
        for start in stride(from: 0, to: state.jobs.count, by: Self.sealingSlice) {
            let jobs = Array(state.jobs[start..<min(start + Self.sealingSlice, state.jobs.count)])
            let sealed = writer.seal(jobs, nonceBase: base)
            for (job, record) in zip(jobs, sealed) {
                try txn.put(StoreLayout.events, StoreLayout.positionKey(job.position), record, append: true)
                guard let header = record.withUnsafeBytes({ RecordHeader(parsing: $0) }) else {
                    throw EventLogError.integrity(job.position, "was sealed with an unreadable header")
                }
                appendedTail.append(StreamIndex.TailEntry(position: job.position, header: header))
                totals.recordBytes += UInt64(record.count)
                totals.bodyBytes += UInt64(RecordBody.count(of: job.event))
                totals.compressedBytes += UInt64(record.withUnsafeBytes(RecordLayout.ciphertextCount))
            }
            records += sealed
        }
        if let last = records.last { state.lastRecordTag = BatchWriter.tag(of: last) }
        state.jobs.removeAll(keepingCapacity: true)
        state.streamsWithJobs.removeAll(keepingCapacity: true)
        try MerkleNodes.extend(from: writtenThrough, to: state.position, records: records, in: txn)
        writtenThrough = state.position
        if state.position - (try StreamIndex.indexedThrough(in: txn)) >= writer.maximumIndexTail {
            try writer.writeIndex(through: state.position, in: txn)
            foldedThrough = state.position
            appendedTail.removeAll()  // indexed now: a long transaction keeps at most a tail's worth
        }
    }

    /// Writes what is queued and the store's counters; the transaction may then commit.
    func finish() throws {
        try writeQueuedRecords()
        if state.keyID != writer.nextKeyID {
            try txn.put(StoreLayout.meta, StoreLayout.nextKeyIDKey, [UInt8](bigEndian: state.keyID))
        }
        if nonceBase != nil { try totals.write(in: txn) }
    }
}

extension TransactionAppender {
    /// A stream's metadata as this transaction sees it: the store as committed, plus what this
    /// transaction has written so far.
    public func streamMetadata(_ stream: StreamID) throws -> StreamMetadata? {
        try EventLog.streamMetadata(stream, in: txn)
    }

    /// The events `stream` already holds among `ids`, by id, decrypted: so that a resent event can be
    /// compared with the one stored under its id. Events whose key is destroyed are left out.
    public func storedEvents(of stream: StreamID, withIDs ids: Set<UUID>) throws -> [UUID: RecordedEvent] {
        try log.storedEvents(of: stream, withIDs: ids, in: txn)
    }

    /// The global positions of the events `stream` holds among `ids`, by id, as this transaction sees it
    /// (what it has written so far included); read from the index of event ids and the tail's clear headers, nothing decrypted.
    public func storedPositions(of stream: StreamID, withIDs ids: Set<UUID>) throws -> [UUID: UInt64] {
        try writeQueuedRecords()
        return try StreamIndex.places(of: ids, in: stream, in: txn).mapValues(\.position)
    }

    /// Reads a stream as ``EventLog/readStream(_:from:maxCount:skippingErased:transform:)`` does, as
    /// this transaction sees it (see ``streamMetadata(_:)``).
    public func readStream<T>(_ stream: StreamID, from number: UInt64 = 0, maxCount: Int = .max, skippingErased: Bool = false,
                              transform: @escaping @Sendable (RecordedEvent) throws -> T) throws -> [T] {
        try log.readStream(stream, from: number, maxCount: maxCount, skippingErased: skippingErased, in: txn, transform: transform)
    }
}
