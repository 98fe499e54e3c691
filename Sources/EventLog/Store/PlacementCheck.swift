/// ``EventLog/verify()``'s check that the stream index (`stream-runs`) places every record before
/// `meta/indexed-through` where it is, made as the records are read in order. The run a stream's last record
/// was found in is kept, so a stream appended in batches costs one lookup per run, not one per record; that the
/// runs cover each stream exactly once is checked after the scan, a run at a time.
struct PlacementCheck {
    private var runs: [StreamID: StreamRun] = [:]

    /// Reads ahead, in one round trip on PostgreSQL, the runs a chunk's records will be looked up in: in an intact
    /// index, a record its stream's kept run does not hold is the first of the next run, whose key is its own.
    func prefetch(_ records: some Sequence<(stream: StreamID, number: UInt64)>, in txn: StoreTransaction) throws {
        guard txn.readsAhead else { return }
        let keys = records.filter { runs[$0.stream]?.numbers.contains($0.number) != true }.map { StreamRun.key($0.stream, $0.number) }
        try txn.prefetch(StoreLayout.streamRuns, keys: keys)
    }

    mutating func check(_ stream: StreamID, number: UInt64, at position: UInt64, in txn: StoreTransaction,
                        report: inout VerificationReport) {
        var run = runs[stream]
        if run?.numbers.contains(number) != true {
            do {
                run = try Self.run(holding: number, of: stream, in: txn)
            } catch {
                report.report(position, "the stream index of stream \(stream) cannot be read at number \(number): \(error)")
                return
            }
            runs[stream] = run
        }
        guard let run else {
            report.report(position, "the stream index has no run holding number \(number) of stream \(stream), which is at position \(position)")
            return
        }
        let placed = run.position(of: number)
        if placed != position {
            report.report(position, "the stream index places stream \(stream) number \(number) at position \(placed), but it is at position \(position)")
        }
    }

    /// The run starting at `number` (one lookup, read ahead by ``prefetch(_:in:)``), or else the one holding it.
    private static func run(holding number: UInt64, of stream: StreamID, in txn: StoreTransaction) throws -> StreamRun? {
        try StreamRun.starting(at: number, of: stream, in: txn) ?? StreamRun.containing(number, of: stream, in: txn)
    }
}
