import Foundation
import HexCoding

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
    /// Rows of the persisted views opened and authenticated (``EventLog/verify(anchor:checkingStructure:progress:)`` only).
    public var checkedViewRows: UInt64 = 0
    /// View rows sealed with a data key since destroyed: they cannot be opened by anyone, so not checked.
    public var erasedViewRows: UInt64 = 0
    /// The Merkle tree head recomputed from the records' leaf hashes (not from the stored nodes).
    public var treeHead = TreeHead(size: 0, rootHash: MerkleHash.empty)
    /// Whether a checkpoint was given and the log was found consistent with it.
    public var anchorConsistent: Bool?
    /// Whether the records' content was authenticated (decrypted and decompressed): false for
    /// ``EventLog/verifyWithoutKey(at:anchor:options:progress:)``, which checks everything else.
    public var contentAuthenticated = true
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
    /// Reads every record, checks its leaf hash, decrypts and decompresses it, checks the stream
    /// rows and the stream index against the records, and rebuilds the Merkle tree from the leaf
    /// hashes, checking every stored node. Then opens every row of the persisted views with the key its
    /// key id names, so that a row altered, moved or swapped is found (the views are derived, but people
    /// read them), and checks that no view claims to have folded past the log's end.
    ///
    /// With `anchor` (a checkpoint verified by ``Checkpoint/verified(_:verifierKey:)``), also checks
    /// that the log extends it: the records it covers hash to its root (so none of them was changed,
    /// removed, reordered or truncated, whoever holds the keys), and the RFC 9162 consistency proof
    /// from its size to now verifies.
    /// - Parameters:
    ///   - checkingStructure: first check the data file's structure (``checkStructure(at:options:)``) in the
    ///     verification's snapshot; pass false only right after checking it yourself.
    ///   - progress: called now and then with (records checked, records in all).
    public func verify(anchor: Checkpoint? = nil, checkingStructure: Bool = true,
                       progress: ((UInt64, UInt64) -> Void)? = nil) throws -> VerificationReport {
        let decoder = ChunkDecoder(opener: opener)
        let (viewsKey, keys, storeID) = (keyHierarchy.views, opener.keys, opener.storeID)
        return try reading { txn in
            try Self.verify(in: txn, origin: checkpointOrigin, anchor: anchor, checkingStructure: checkingStructure, progress: progress,
                            open: { chunk in decoder.startChecking(chunk, in: txn) },
                            afterRecords: { total, report in
                                try Self.checkViews(in: txn, logEnd: total, viewsKey: viewsKey, keys: keys, storeID: storeID, report: &report)
                            })
        }
    }

    /// Every row of `views` opens under its own stored key with the key its key id names, and every view checkpoint is
    /// 8 bytes at or below the log's end.
    private static func checkViews(in txn: StoreTransaction, logEnd: UInt64, viewsKey: SecureBytes, keys: KeyRing, storeID: [UInt8],
                                   report: inout VerificationReport) throws {
        try txn.withCursor(StoreLayout.views) { cursor in
            var entry = try cursor.first()
            while let (storedKey, stored) = entry {
                let key = Array(storedKey)
                do {
                    _ = try ViewReader.open(stored, storedKey: key, viewsKey: viewsKey, keys: keys, storeID: storeID, in: txn)
                    report.checkedViewRows += 1
                } catch let error as EventLogError where error.code == .keyDestroyed {
                    report.erasedViewRows += 1
                } catch let error as EventLogError {
                    report.report(nil, "the row of view \(viewName(of: key)) at key \(Hex.string(key)): \(error.message)")
                }
                entry = try cursor.next()
            }
        }
        try txn.withCursor(StoreLayout.viewCheckpoints) { cursor in
            var entry = try cursor.first()
            while let (name, value) = entry {
                let view = viewName(of: Array(name))
                if value.count != 8 {
                    report.report(nil, "the checkpoint of view \(view) is malformed (\(value.count) bytes, not 8)")
                } else if value.loadBigEndian(at: 0) as UInt64 > logEnd {
                    report.report(nil, "the checkpoint of view \(view) is past the log's end (\(value.loadBigEndian(at: 0) as UInt64) > \(logEnd))")
                }
                entry = try cursor.next()
            }
        }
    }

    /// The view's name a stored key begins with (`name length u8 ‖ name`), or its bytes in hex when it does not parse.
    private static func viewName(of storedKey: [UInt8]) -> String {
        guard let length = storedKey.first.map(Int.init), storedKey.count > length, length > 0,
              let name = String(bytes: storedKey[1...length], encoding: .utf8) else { return Hex.string(storedKey) }
        return name
    }

    /// The structure of the store's data file, checked from its bytes alone (every page LMDB would trust:
    /// numbers, kinds, node bounds, child and overflow pages, depths), with no key and before anything
    /// walks the file: LMDB keeps no checksums, and a damaged page header can crash whatever reads it.
    /// `verify` and `verifyWithoutKey` check it too; call this first on a file that may be damaged.
    /// A PostgreSQL store has no file of its own to check (the server keeps its pages): its report is empty.
    public static func checkStructure(at directory: String, options: EventLogOptions = EventLogOptions()) throws -> VerificationReport {
        var report = VerificationReport()
        for problem in try StoreEnvironment.structureProblems(at: directory, options: options) { report.report(nil, problem) }
        return report
    }

    /// What an auditor can check with no key at all: every record's header, its leaf hash against the
    /// stored bytes and nonce base, positions contiguous, stream numbers in order, the stream index,
    /// the Merkle tree rebuilt from the leaves against the stored nodes, and `anchor` (verified by the
    /// caller with the store's public verifier key). Not checked, and said so in
    /// ``VerificationReport/contentAuthenticated``: that the ciphertext authenticates and decompresses,
    /// which needs the data keys.
    public static func verifyWithoutKey(at directory: String, anchor: Checkpoint? = nil, options: EventLogOptions = EventLogOptions(),
                                        progress: ((UInt64, UInt64) -> Void)? = nil) throws -> VerificationReport {
        var structure = try checkStructure(at: directory, options: options)
        structure.contentAuthenticated = false
        guard structure.isIntact else { return structure }
        do {
            let environment = try StoreEnvironment.open(directory, .existing, options: options)
            return try environment.read { txn in
                try StoreOpening.checkFormat(in: txn)
                let storeID = try StoreOpening.storeID(in: txn).withUnsafeBytes { UUID(bytes: $0) }
                var report = try verify(in: txn, origin: "sessionstore/\(storeID.uuidString.lowercased())", anchor: anchor,
                                        checkingStructure: false,  // checked above, before opening
                                        progress: progress) { chunk in
                    var bases = NonceBaseCursor()
                    var results: [Result<(stream: StreamID, number: UInt64), any Error>] = []
                    results.reserveCapacity(chunk.count)
                    do {
                        for (unit, served) in try SealedUnit.group(chunk, in: txn) {
                            RecordOpener.checkWithoutKey(unit, wanted: served.map { Int(chunk[$0].position - unit.position) },
                                                         nonceBase: try bases.base(for: unit.position, in: txn), into: &results)
                        }
                    } catch {
                        results = chunk.map { _ in .failure(error) }
                    }
                    return { results }
                }
                report.contentAuthenticated = false
                return report
            }
        } catch {
            throw EventLogError.storage(error)
        }
    }

    /// The scan both verifications share: `open` starts checking a chunk of records (with or without keys) and
    /// returns what waits for the results; the rest is checked in order here, while the next chunk is opened.
    private static func verify(in txn: StoreTransaction, origin: String, anchor: Checkpoint?, checkingStructure: Bool,
                               progress: ((UInt64, UInt64) -> Void)?,
                               open: (_ chunk: [ChunkDecoder.Entry]) -> () -> [Result<(stream: StreamID, number: UInt64), any Error>],
                               afterRecords: (_ logEnd: UInt64, _ report: inout VerificationReport) throws -> Void = { _, _ in })
        throws -> VerificationReport {
        var report = VerificationReport()
        let damage = checkingStructure ? txn.structureProblems() : []
        guard damage.isEmpty else {
            for problem in damage { report.report(nil, problem) }
            return report
        }
        // One snapshot: the log and its index as of one moment, whatever is appended meanwhile.
        do {
            let total = try txn.withCursor(StoreLayout.events) {
                try $0.last().map { try StoreLayout.position(ofKey: $0.key) + 1 } ?? 0
            }
            let indexedThrough = try StreamIndex.indexedThrough(in: txn)
            if indexedThrough > total {
                report.report(nil, "the stream index claims \(indexedThrough) events but the log holds \(total)")
            }
            var expected: UInt64 = 0
            var nextNumbers: [StreamID: UInt64] = [:]
            var indexedNumbers: [StreamID: UInt64]?  // nextNumbers as of position indexedThrough
            var tree = MerkleRebuilder()
            var anchorRoot: [UInt8]? = anchor?.size == 0 ? MerkleHash.empty : nil
            // The tree grows over the records from position 0 on while they follow each other whole; each node
            // the store keeps is checked as it is completed, and the root is taken at the anchor's size.
            var leaves: [UInt8] = []
            func grow(_ tree: inout MerkleRebuilder, by chunk: [ChunkDecoder.Entry]) throws {
                leaves.removeAll(keepingCapacity: true)
                for (position, value) in chunk where position >= tree.size {
                    guard position == tree.size + UInt64(leaves.count / 32), value.count >= RecordLayout.leafEnd else { break }
                    leaves.append(contentsOf: value[RecordLayout.leafOffset..<RecordLayout.ciphertextOffset])
                }
                func checkStored(level: Int, index: UInt64, hash: [UInt8]) throws {
                    let stored = try txn.get(StoreLayout.merkle, MerkleNodes.key(level: level, index: index))
                    if stored.map(Array.init) != hash {
                        report.report(nil, "the Merkle tree node at level \(level) index \(index) \(stored == nil ? "is missing" : "does not match the records")")
                    }
                }
                try leaves.withUnsafeBytes { leaves in
                    var rest = leaves
                    if let size = anchor?.size, size > tree.size, size - tree.size <= UInt64(rest.count / 32) {
                        let split = Int(size - tree.size) * 32
                        try tree.add(leaves: UnsafeRawBufferPointer(rebasing: rest[..<split]), completed: checkStored)
                        anchorRoot = tree.root
                        rest = UnsafeRawBufferPointer(rebasing: rest[split...])
                    }
                    try tree.add(leaves: rest, completed: checkStored)
                }
            }
            // Records are opened (leaf check, decrypt, decompress) a chunk at a time on all cores; what
            // depends on order (stream numbers, the index's placements, the tree, gaps, the event-id index) is
            // then checked in order, on this thread while the next chunk is opened on the others.
            var eventIDs = EventIDCheck()
            var placements = PlacementCheck()
            func checkInOrder(_ chunk: [ChunkDecoder.Entry], _ opened: [Result<(stream: StreamID, number: UInt64), any Error>]) throws {
                try placements.prefetch(zip(chunk, opened).lazy.filter { $0.0.position < indexedThrough }.compactMap { entry, result in
                    place(result, record: entry.record)
                }, in: txn)
                for ((position, value), result) in zip(chunk, opened) {
                    if position > expected {
                        report.report(expected, "records at positions \(expected)..<\(position) are missing")
                    }
                    if indexedNumbers == nil, position >= indexedThrough { indexedNumbers = nextNumbers }
                    let event = check(result, record: value, at: position, nextNumbers: &nextNumbers, report: &report)
                    if position < indexedThrough, let event, !report.badPositions.contains(position) {
                        placements.check(event.stream, number: event.number, at: position, in: txn, report: &report)
                    }
                    expected = position + 1
                    if report.checkedRecords % 65_536 == 0 { progress?(report.checkedRecords, total) }
                }
                try grow(&tree, by: chunk)
                try eventIDs.check(chunk.prefix { $0.position < indexedThrough }, in: txn, report: &report)
            }
            // A pipeline: while the workers open one chunk, this thread checks the chunk before in order, reads
            // the next one and looks up its keys. Whatever is thrown, no chunk is left opening after the
            // transaction ends (its workers read the transaction's bytes).
            var opening: (chunk: [ChunkDecoder.Entry], results: () -> [Result<(stream: StreamID, number: UInt64), any Error>])?
            defer { _ = opening?.results() }
            func openNext(_ chunk: [ChunkDecoder.Entry]) throws {
                let before = opening
                opening = (chunk, open(chunk))
                if let before { try checkInOrder(before.chunk, before.results()) }
            }
            try txn.withCursor(StoreLayout.events) { cursor in
                var entry = try cursor.first()
                var chunk: [ChunkDecoder.Entry] = []
                chunk.reserveCapacity(1024)
                while let (key, value) = entry {
                    if key.count == 8 {
                        chunk.append((try StoreLayout.position(ofKey: key), value))
                    } else {
                        report.report(nil, "the events database holds a malformed key of \(key.count) bytes")
                    }
                    if chunk.count == 1024 {
                        try openNext(chunk)
                        chunk = []
                        chunk.reserveCapacity(1024)
                    }
                    entry = try cursor.next()
                }
                try openNext(chunk)
                if let last = opening {
                    opening = nil
                    try checkInOrder(last.chunk, last.results())
                }
            }
            progress?(report.checkedRecords, total)
            report.treeHead = TreeHead(size: tree.size, rootHash: tree.root)
            if let anchor { try check(anchor, origin: origin, rootAtItsSize: anchorRoot, in: txn, report: &report) }
            try checkIndex(indexedNumbers ?? nextNumbers, indexedThrough: indexedThrough, in: txn, report: &report)
            try eventIDs.checkCount(in: txn, report: &report)
            try afterRecords(total, &report)
        }
        return report
    }

    /// The log must extend `anchor`: its first `anchor.size` leaves hash to the anchor's root, and the
    /// consistency proof from the stored tree leads from that root to the root recomputed now.
    private static func check(_ anchor: Checkpoint, origin: String, rootAtItsSize: [UInt8]?, in txn: StoreTransaction,
                              report: inout VerificationReport) throws {
        let before = report.problemCount
        if anchor.origin != origin {
            report.report(nil, "the checkpoint is of another log (\(anchor.origin)), not \(origin)")
        } else if anchor.size > report.treeHead.size {
            report.report(nil, "the log holds \(report.treeHead.size) records but the checkpoint covers \(anchor.size): records were removed")
        } else if rootAtItsSize != anchor.rootHash {
            report.report(nil, "the first \(anchor.size) records do not hash to the checkpoint's root: a record it covers was changed, removed or reordered")
        } else {
            let proof = try? MerkleProof.consistency(from: anchor.size, to: report.treeHead.size) { try MerkleNodes.node($0, $1, in: txn) }
            if proof.map({ MerkleProof.verifyConsistency($0, oldSize: anchor.size, oldRoot: anchor.rootHash,
                                                          newSize: report.treeHead.size, newRoot: report.treeHead.rootHash) }) != true {
                report.report(nil, "the consistency proof from the checkpoint (\(anchor.size) records) to the log (\(report.treeHead.size)) does not verify")
            }
        }
        report.anchorConsistent = report.problemCount == before
    }

    /// Checks a record's place in its stream; returns its stream and number, from its clear header when it did
    /// not open (nil when that is unreadable too).
    private static func check(_ opened: Result<(stream: StreamID, number: UInt64), any Error>, record: UnsafeRawBufferPointer,
                              at position: UInt64, nextNumbers: inout [StreamID: UInt64],
                              report: inout VerificationReport) -> (stream: StreamID, number: UInt64)? {
        report.checkedRecords += 1
        switch opened {
        case .success(let event):
            let expectedNumber = exchange(&nextNumbers[event.stream, default: 0], event.number + 1)  // one hash of the id, not two
            if event.number != expectedNumber {
                report.report(position, "record at position \(position) is number \(event.number) of stream \(event.stream), expected \(expectedNumber)")
            }
            return event
        case .failure(let error):
            if let error = error as? EventLogError, error.code == .keyDestroyed {
                report.erasedRecords += 1
            } else {
                report.report(position, "\(error)")
            }
            // Follow the stream from the clear header, so that one bad record is reported once
            // and not again as a gap in its stream.
            guard let place = place(opened, record: record) else { return nil }
            nextNumbers[place.stream] = place.number + 1
            return place
        }
    }

    /// A record's stream and number: as it opened, or from its clear header when it did not (nil when that is
    /// unreadable too).
    private static func place(_ opened: Result<(stream: StreamID, number: UInt64), any Error>,
                              record: UnsafeRawBufferPointer) -> (stream: StreamID, number: UInt64)? {
        (try? opened.get()) ?? RecordHeader(parsing: record).map { (StreamID($0.stream), $0.streamNumber) }
    }

    /// The index must describe exactly the log before `indexedThrough`: a row for every stream with events
    /// there, and runs covering its numbers once, in order, within that part of the log. (That each run points
    /// at its records was checked record by record during the scan: ``PlacementCheck``.) Each database is walked once,
    /// in key order: a stream's version is where its last run ends, so no stream is looked up on its own (on PostgreSQL,
    /// a lookup is a round trip).
    private static func checkIndex(_ seen: [StreamID: UInt64], indexedThrough: UInt64, in txn: StoreTransaction,
                                   report: inout VerificationReport) throws {
        var versions: [StreamID: UInt64] = [:]
        var runProblems: [String] = []
        try txn.withCursor(StoreLayout.streamRuns) { cursor in
            var previousStream: StreamID?
            var previousEnd: UInt64 = 0
            var entry = try cursor.first()
            while let current = entry {
                guard current.key.count == 24 else {
                    runProblems.append("the stream index holds a malformed key")
                    entry = try cursor.next()
                    continue
                }
                let stream = StreamID(UUID(bytes: UnsafeRawBufferPointer(rebasing: current.key[0..<16])))
                if let run = try StreamRun.decode(current, of: stream) {
                    let expectedFirst = stream == previousStream ? previousEnd : 0
                    if run.firstNumber != expectedFirst {
                        runProblems.append("the stream index of stream \(stream) has a run starting at number \(run.firstNumber), expected \(expectedFirst)")
                    }
                    previousStream = stream
                    previousEnd = run.numbers.upperBound
                    versions[stream] = run.numbers.upperBound
                    if run.firstPosition >= indexedThrough || UInt64(run.count) > indexedThrough - run.firstPosition {
                        let number = run.firstNumber + (run.firstPosition >= indexedThrough ? 0 : indexedThrough - run.firstPosition)
                        runProblems.append("the stream index places stream \(stream) number \(number) at position \(run.position(of: number)), past the indexed part of the log")
                    }
                }
                entry = try cursor.next()
            }
        }
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
                let version = versions[stream] ?? 0
                if seen[stream] != version {
                    report.report(nil, "stream \(stream) has version \(version) in the stream index but \(seen[stream] ?? 0) events were found")
                }
                entry = try cursor.next()
            }
        }
        if rows != seen.count {
            report.report(nil, "\(seen.count) streams have events but \(rows) stream rows exist")
        }
        for problem in runProblems { report.report(nil, problem) }
    }
}

/// `value`'s old value, after putting `new` in its place.
private func exchange<T>(_ value: inout T, _ new: T) -> T {
    defer { value = new }
    return value
}
