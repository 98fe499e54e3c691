import Foundation

/// One thing found wrong by ``EventLog/verify(progress:)``.
public struct IntegrityProblem: Hashable, Sendable, CustomStringConvertible {
    /// The global position concerned, when the problem is one record's.
    public var position: UInt64?
    /// What is wrong, in one sentence.
    public var message: String
    public var description: String { message }
}

/// What ``EventLog/verify(progress:)`` found.
public struct VerificationReport: Sendable {
    /// Records read and checked.
    public var checkedRecords: UInt64 = 0
    /// Records whose data key was destroyed (erased): their leaf hash was checked, their content cannot be.
    public var erasedRecords: UInt64 = 0
    /// The problems found, the first ``maximumListed`` of them, in the order found.
    public var problems: [IntegrityProblem] = []
    /// How many problems were found in all.
    public var problemCount = 0
    /// Problems listed at most; `problemCount` counts them all.
    public static let maximumListed = 10_000

    /// True when no problem was found.
    public var isIntact: Bool { problemCount == 0 }

    /// Positions already reported, so that later checks do not report them again.
    var badPositions: Set<UInt64> = []

    mutating func report(_ position: UInt64?, _ message: String) {
        if let position { badPositions.insert(position) }
        problemCount += 1
        if problems.count < Self.maximumListed { problems.append(IntegrityProblem(position: position, message: message)) }
    }
}

extension EventLog {
    /// Reads every record, checks its leaf hash, decrypts and decompresses it, and checks the
    /// stream rows and the stream index against the records.
    ///
    /// - Parameter progress: called now and then with (records checked, records in all).
    public func verify(progress: ((UInt64, UInt64) -> Void)? = nil) throws -> VerificationReport {
        var report = VerificationReport()
        // One snapshot: the log and its index as of one moment, whatever is appended meanwhile.
        try reading { txn in
            let total = try txn.withCursor(StoreLayout.events) {
                try $0.last().map { $0.key.loadBigEndian(at: 0, as: UInt64.self) + 1 } ?? 0
            }
            let indexedThrough = try StreamIndex.indexedThrough(in: txn)
            if indexedThrough > total {
                report.report(nil, "the stream index claims \(indexedThrough) events but the log holds \(total)")
            }
            var expected: UInt64 = 0
            var nextNumbers: [StreamID: UInt64] = [:]
            var indexedNumbers: [StreamID: UInt64]?  // nextNumbers as of position indexedThrough
            var bases = NonceBaseCursor()
            let decompressor = Decompressor()
            try txn.withCursor(StoreLayout.events) { cursor in
                var entry = try cursor.first()
                while let (key, value) = entry {
                    guard key.count == 8 else {
                        report.report(nil, "the events database holds a malformed key of \(key.count) bytes")
                        entry = try cursor.next()
                        continue
                    }
                    let position: UInt64 = key.loadBigEndian(at: 0)
                    if position > expected {
                        report.report(expected, "records at positions \(expected)..<\(position) are missing")
                    }
                    if indexedNumbers == nil, position >= indexedThrough { indexedNumbers = nextNumbers }
                    let base = try? bases.base(for: position, in: txn)
                    check(value, at: position, nonceBase: base, decompressor: decompressor, in: txn,
                          nextNumbers: &nextNumbers, report: &report)
                    expected = position + 1
                    if report.checkedRecords % 65_536 == 0 { progress?(report.checkedRecords, total) }
                    entry = try cursor.next()
                }
            }
            progress?(report.checkedRecords, total)
            try checkIndex(indexedNumbers ?? nextNumbers, indexedThrough: indexedThrough, in: txn, report: &report)
        }
        return report
    }

    private func check(_ record: UnsafeRawBufferPointer, at position: UInt64, nonceBase: NonceBase?,
                       decompressor: Decompressor, in txn: LMDBTransaction,
                       nextNumbers: inout [StreamID: UInt64], report: inout VerificationReport) {
        report.checkedRecords += 1
        do {
            let event = try opener.open(record, position: position, nonceBase: nonceBase, decompressor: decompressor) {
                try opener.keys.key($0, in: txn)
            }
            let expectedNumber = nextNumbers[event.stream] ?? 0
            if event.streamNumber != expectedNumber {
                report.report(position, "record at position \(position) is number \(event.streamNumber) of stream \(event.stream), expected \(expectedNumber)")
            }
            nextNumbers[event.stream] = event.streamNumber + 1
        } catch {
            if let error = error as? EventLogError, error.code == .keyDestroyed {
                report.erasedRecords += 1
            } else {
                report.report(position, "\(error)")
            }
            // Follow the stream from the clear header, so that one bad record is reported once
            // and not again as a gap in its stream.
            if let header = RecordHeader(parsing: record) {
                nextNumbers[StreamID(header.stream)] = header.streamNumber + 1
            }
        }
    }

    /// The index must describe exactly the log before `indexedThrough`: a row for every stream with
    /// events there, runs covering its numbers in order and pointing at its records, nothing beyond.
    private func checkIndex(_ seen: [StreamID: UInt64], indexedThrough: UInt64, in txn: LMDBTransaction,
                            report: inout VerificationReport) throws {
        var rows = 0
        try txn.withCursor(StoreLayout.streams) { cursor in
            var entry = try cursor.first()
            while let (key, value) = entry {
                rows += 1
                guard key.count == 16, StreamRow(value) != nil else {
                    report.report(nil, "the streams database holds a malformed row")
                    entry = try cursor.next()
                    continue
                }
                let stream = StreamID(UUID(bytes: key))
                let version = try StreamRun.last(of: stream, in: txn)?.numbers.upperBound ?? 0
                if seen[stream] != version {
                    report.report(nil, "stream \(stream) has version \(version) in the stream index but \(seen[stream] ?? 0) events were found")
                }
                entry = try cursor.next()
            }
        }
        if rows != seen.count {
            report.report(nil, "\(seen.count) streams have events but \(rows) stream rows exist")
        }
        var previousStream: StreamID?
        var previousEnd: UInt64 = 0
        try txn.withCursor(StoreLayout.streamRuns) { cursor in
            var entry = try cursor.first()
            while let current = entry {
                guard current.key.count == 24 else {
                    report.report(nil, "the stream index holds a malformed key")
                    entry = try cursor.next()
                    continue
                }
                let stream = StreamID(UUID(bytes: UnsafeRawBufferPointer(rebasing: current.key[0..<16])))
                if let run = try StreamRun.decode(current, of: stream) {
                    let expectedFirst = stream == previousStream ? previousEnd : 0
                    if run.firstNumber != expectedFirst {
                        report.report(nil, "the stream index of stream \(stream) has a run starting at number \(run.firstNumber), expected \(expectedFirst)")
                    }
                    previousStream = stream
                    previousEnd = run.numbers.upperBound
                    for number in run.numbers {
                        let position = run.position(of: number)
                        if position >= indexedThrough {
                            report.report(nil, "the stream index places stream \(stream) number \(number) at position \(position), past the indexed part of the log")
                            break
                        }
                        if report.badPositions.contains(position) { continue }
                        let header = try txn.get(StoreLayout.events, StoreLayout.positionKey(position)).flatMap(RecordHeader.init(parsing:))
                        if header?.stream != stream.uuid || header?.streamNumber != number {
                            report.report(position, "the stream index places stream \(stream) number \(number) at position \(position), which holds another record")
                        }
                    }
                }
                entry = try cursor.next()
            }
        }
    }
}
