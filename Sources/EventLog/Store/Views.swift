import Foundation

/// Named, encrypted key–value tables for persisted projections, each with a checkpoint that is
/// written in the same transaction as its rows: a projection that stores the rows it folded from
/// events before position `p` together with checkpoint `p` is exactly-once across crashes.
///
/// Row keys are stored in clear (they order the rows): use ids and keyed hashes, never personal
/// data. Row values are sealed with the store's view key, bound to their view and key.
public struct ViewWriter {
    let reader: ViewReader

    /// The row stored under `key`, or nil.
    public func row(_ key: [UInt8]) throws -> [UInt8]? { try reader.row(key) }

    /// Stores `value` sealed under `key`, replacing any row there.
    public func put(_ key: [UInt8], _ value: [UInt8]) throws {
        let storedKey = reader.storedKey(key)
        let sealed = value.withUnsafeBytes {
            AEAD.sealBox($0, additionalData: reader.additionalData(storedKey), key: reader.key)
        }
        try reader.txn.put(StoreLayout.views, storedKey, sealed)
    }

    /// Removes the row at `key`, if any.
    public func remove(_ key: [UInt8]) throws {
        try reader.txn.delete(StoreLayout.views, reader.storedKey(key))
    }

    /// The position of the first event the view has not folded yet; nil for a view never written.
    public func checkpoint() throws -> UInt64? { try reader.checkpoint() }

    /// Records that the view has folded every event before `position`, in the same transaction as its rows.
    public func setCheckpoint(_ position: UInt64) throws {
        try reader.txn.put(StoreLayout.viewCheckpoints, reader.prefix, [UInt8](bigEndian: position))
    }
}

/// Read access to one view inside a read transaction.
public struct ViewReader {
    let txn: LMDBTransaction
    let prefix: [UInt8]
    let key: SecureBytes
    let storeID: [UInt8]

    func storedKey(_ key: [UInt8]) -> [UInt8] { prefix + key }

    /// `"view" | store id | stored key`: a row opens only in its own store, view and key.
    func additionalData(_ storedKey: [UInt8]) -> [UInt8] { Array("view".utf8) + storeID + storedKey }

    /// The opened row at `key`, or `nil`.
    public func row(_ key: [UInt8]) throws -> [UInt8]? {
        let storedKey = storedKey(key)
        guard let sealed = try txn.get(StoreLayout.views, storedKey) else { return nil }
        return try open(sealed, storedKey: storedKey)
    }

    /// Calls `body` with every row of the view whose key starts with `keyPrefix` (all rows by
    /// default), in key order.
    public func forEachRow(startingWith keyPrefix: [UInt8] = [], _ body: (_ key: [UInt8], _ value: [UInt8]) throws -> Void) throws {
        let start = prefix + keyPrefix
        try txn.withCursor(StoreLayout.views) { cursor in
            var entry = try cursor.seek(atOrAfter: start)
            while let (storedKey, sealed) = entry, storedKey.starts(with: start) {
                let key = Array(storedKey)
                try body(Array(key[prefix.count...]), try open(sealed, storedKey: key))
                entry = try cursor.next()
            }
        }
    }

    /// The position of the first event the view has not folded, or `nil` for a view never written.
    public func checkpoint() throws -> UInt64? {
        guard let bytes = try txn.get(StoreLayout.viewCheckpoints, prefix) else { return nil }
        guard bytes.count == 8 else { throw EventLogError(.integrity, "the checkpoint of a view is malformed") }
        return bytes.loadBigEndian(at: 0)
    }

    private func open(_ sealed: UnsafeRawBufferPointer, storedKey: [UInt8]) throws -> [UInt8] {
        guard let value = AEAD.openBox(sealed, additionalData: additionalData(storedKey), key: key) else {
            throw EventLogError(.integrity, "a row of a view does not authenticate (damaged or moved)")
        }
        return value
    }
}

extension EventLog {
    /// Runs `body` in one write transaction over the view `name`: its rows and its checkpoint
    /// change together or not at all.
    ///
    /// ```swift
    /// try log.updateView("sessions") { view in
    ///     try view.put(sessionID, encodedSummary)
    ///     try view.setCheckpoint(lastFolded.position + 1)
    /// }
    /// ```
    public func updateView<R>(_ name: String, _ body: (ViewWriter) throws -> R) throws -> R {
        try updateViews([name]) { try body($0[0]) }
    }

    /// Runs `body` in one write transaction over several views (writers in the order of `names`):
    /// a runner that folds one batch into many views pays for one commit, not one per view.
    public func updateViews<R>(_ names: [String], _ body: ([ViewWriter]) throws -> R) throws -> R {
        let prefixes = try names.map(Self.viewPrefix)
        return try writing { txn in
            try body(prefixes.map {
                ViewWriter(reader: ViewReader(txn: txn, prefix: $0, key: keyHierarchy.views, storeID: opener.storeID))
            })
        }
    }

    /// Runs `body` with read access to the view `name`, in one snapshot.
    public func readView<R>(_ name: String, _ body: (ViewReader) throws -> R) throws -> R {
        let prefix = try Self.viewPrefix(name)
        return try reading { txn in
            try body(ViewReader(txn: txn, prefix: prefix, key: keyHierarchy.views, storeID: opener.storeID))
        }
    }

    /// Deletes every row and the checkpoint of the view `name` (before a rebuild from position 0).
    public func dropView(_ name: String) throws {
        let prefix = try Self.viewPrefix(name)
        try writing { txn in
            var keys: [[UInt8]] = []
            try txn.withCursor(StoreLayout.views) { cursor in
                var entry = try cursor.seek(atOrAfter: prefix)
                while let (key, _) = entry, key.starts(with: prefix) {
                    keys.append(Array(key))
                    entry = try cursor.next()
                }
            }
            for key in keys { try txn.delete(StoreLayout.views, key) }
            try txn.delete(StoreLayout.viewCheckpoints, prefix)
        }
    }

    /// The keyed hash of an identifier such as a person's user id (BLAKE2b-256 with the store's
    /// subject-hashing key): stable within this store, unusable without its master key.
    public func identifierHash(_ identifier: String) -> [UInt8] {
        IdentifierHasher(key: keyHierarchy.subjectHashing).hash(Array(identifier.utf8))
    }

    /// `name length u8 | name`: the prefix of a view's row keys and its checkpoint key.
    static func viewPrefix(_ name: String) throws -> [UInt8] {
        let bytes = Array(name.utf8)
        guard (1...255).contains(bytes.count) else {
            throw EventLogError(.invalidArgument, "a view name must be 1 to 255 UTF-8 bytes, not \(bytes.count)")
        }
        return [UInt8(bytes.count)] + bytes
    }
}
