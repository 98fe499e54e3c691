import Foundation

/// How far a copy has come: the records the destination holds, of those the source holds.
public struct CopyProgress: Sendable {
    public let copiedRecords: UInt64
    public let totalRecords: UInt64
}

/// What ``EventLog/copy(to:batchRecords:progress:)`` did.
public struct CopyReport: Sendable {
    /// The destination, as messages may show it (a URL's password as `***`).
    public let destination: String
    /// The records the destination holds now: every record of the source as of the copy's last step.
    public let records: UInt64
    /// How many of them this run copied: fewer than ``records`` when it finished an interrupted copy,
    /// none when the destination was a complete copy already.
    public let copiedRecords: UInt64
    /// Whether this run finished a copy that an earlier run began.
    public let resumed: Bool
}

extension EventLog {
    /// Copies the whole store, record for record and byte for byte, to `destination`: a directory (LMDB)
    /// or a `postgresql://` URL, of either backend. Records, keys (wrapped, as stored), dictionaries,
    /// indexes, views and the Merkle tree are the source's, so the copy opens with the same key and
    /// verifies to the same tree root.
    ///
    /// The destination must be new: a missing or empty directory, or a database without a store. The
    /// records go over in transactions of `batchRecords`; everything else, with the records appended
    /// meanwhile, in one last transaction from one snapshot of the source. Until that commits, the
    /// destination is an unfinished copy that does not open as a store, and running the copy again resumes
    /// it after the last record it holds. A destination that is a complete copy already is left alone.
    /// `progress` is called after each transaction; an error it throws stops the copy there.
    @discardableResult
    public func copy(to destination: String, batchRecords: Int = 10_000,
                     progress: (CopyProgress) throws -> Void = { _ in }) throws -> CopyReport {
        do {
            return try StoreCopy(source: self, destination: destination, batchRecords: max(1, batchRecords)).run(progress: progress)
        } catch {
            throw StoreEnvironment.isStorageError(error) ? EventLogError.storage(error) : error
        }
    }
}

/// One run of ``EventLog/copy(to:batchRecords:progress:)``.
private struct StoreCopy {
    let source: EventLog
    let destination: String
    let batchRecords: Int

    /// The destination as messages show it.
    var shown: String { StoreLocation.redacted(destination) }

    /// What the destination holds before the copy.
    enum State: Equatable {
        case empty
        /// An unfinished copy of this store.
        case unfinished
        /// A complete store of this id.
        case complete
    }

    func run(progress: (CopyProgress) throws -> Void) throws -> CopyReport {
        let storeID = withUnsafeBytes(of: source.storeID.uuid) { Array($0) }
        let target = try openTarget()
        let state = try target.read { try destinationState(in: $0, storeID: storeID) }
        var next = try target.read(StoreLayout.eventCount)
        let total = try source.environment.read(StoreLayout.eventCount)
        if next > 0 { try checkSameRecord(at: next - 1, in: target) }
        if state == .complete {
            guard next == total else {
                throw EventLogError(.alreadyExists, "\(shown) holds an earlier copy of this store (\(next) of its \(total) records); "
                                    + "copy to a new place, or remove it and copy again", path: shown)
            }
            return CopyReport(destination: shown, records: next, copiedRecords: 0, resumed: false)
        }
        if state == .empty {
            try target.write { try $0.put(StoreLayout.meta, StoreLayout.copyOfKey, storeID) }
        }
        let start = next
        try progress(CopyProgress(copiedRecords: next, totalRecords: total))
        while true {
            let copied = try target.write { destination in
                try source.environment.read { try copyRecords(from: $0, to: destination, startingAt: next, limit: batchRecords) }
            }
            next += copied
            try progress(CopyProgress(copiedRecords: next, totalRecords: max(total, next)))
            if copied < batchRecords { break }
        }
        // The last step: the records appended meanwhile and every other table, from one snapshot.
        next += try target.write { destination in
            try source.environment.read { snapshot in
                let copied = try copyRecords(from: snapshot, to: destination, startingAt: next, limit: .max)
                for table in StoreLayout.all where table != StoreLayout.events {
                    try copyTable(table, from: snapshot, to: destination)
                }
                try destination.delete(StoreLayout.meta, StoreLayout.copyOfKey)
                return copied
            }
        }
        try progress(CopyProgress(copiedRecords: next, totalRecords: next))
        return CopyReport(destination: shown, records: next, copiedRecords: next - start, resumed: state == .unfinished)
    }

    /// The destination's environment: a PostgreSQL database (its tables created when missing), or an
    /// LMDB environment in a directory that is new, empty or an unfinished copy.
    private func openTarget() throws -> StoreEnvironment {
        if StoreLocation.same(destination, source.directory, backends: source.backends) {
            throw EventLogError(.invalidArgument, "the copy's destination is its source, \(shown)", path: shown)
        }
        var options = EventLogOptions()
        options.backends = source.backends
        return try StoreEnvironment.open(destination, .creating, options: options)
    }

    private func destinationState(in txn: StoreTransaction, storeID: [UInt8]) throws -> State {
        if try txn.get(StoreLayout.meta, StoreLayout.formatKey) != nil {
            guard try txn.get(StoreLayout.meta, StoreLayout.storeIDKey).map(Array.init) == storeID else {
                throw EventLogError(.alreadyExists, "\(shown) holds another store; refusing to copy over it", path: shown)
            }
            return .complete
        }
        if let copyOf = try txn.get(StoreLayout.meta, StoreLayout.copyOfKey) {
            guard Array(copyOf) == storeID else {
                throw EventLogError(.alreadyExists, "\(shown) holds an unfinished copy of another store; refusing to copy over it", path: shown)
            }
            return .unfinished
        }
        for table in StoreLayout.all where try txn.count(table) > 0 {
            throw EventLogError(.alreadyExists, "\(shown) is not empty (its \(table) table holds rows) and is not a store; refusing to copy there",
                                path: shown)
        }
        return .empty
    }

    /// The record before `position` must be the same in both: a destination that went its own way since
    /// (appended to as a store of its own) is not resumed.
    private func checkSameRecord(at position: UInt64, in target: StoreEnvironment) throws {
        let key = StoreLayout.positionKey(position)
        let theirs = try target.read { try $0.get(StoreLayout.events, key).map(Array.init) }
        let ours = try source.environment.read { try $0.get(StoreLayout.events, key).map(Array.init) }
        guard theirs == ours else {
            throw EventLogError(.integrity, "\(shown) does not hold this store's record at position \(position); it is not a copy of it",
                                position: position, path: shown)
        }
    }

    /// Copies up to `limit` records from `position` on; returns how many.
    private func copyRecords(from source: StoreTransaction, to destination: StoreTransaction, startingAt position: UInt64, limit: Int) throws -> UInt64 {
        try source.withCursor(StoreLayout.events) { cursor in
            var copied: UInt64 = 0
            var entry = try cursor.seek(atOrAfter: StoreLayout.positionKey(position))
            while let (key, value) = entry, copied < limit {
                guard try StoreLayout.position(ofKey: key) == position + copied else {
                    throw EventLogError.integrity(position + copied, "is missing from the source: its positions are not contiguous")
                }
                try destination.put(StoreLayout.events, key, value, append: true)
                copied += 1
                entry = copied < limit ? try cursor.next() : nil
            }
            return copied
        }
    }

    /// Copies every row of `table`; the destination holds none but the copy marker in `meta`.
    private func copyTable(_ table: String, from source: StoreTransaction, to destination: StoreTransaction) throws {
        try source.withCursor(table) { cursor in
            var entry = try cursor.first()
            while let (key, value) = entry {
                try destination.put(table, key, value, append: table != StoreLayout.meta)
                entry = try cursor.next()
            }
        }
    }
}
