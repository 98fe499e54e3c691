import Foundation

/// Named, encrypted key–value tables for persisted projections, each with a checkpoint that is
/// written in the same transaction as its rows: a projection that stores the rows it folded from
/// events before position `p` together with checkpoint `p` is exactly-once across crashes.
///
/// Row keys are stored in clear (they order the rows): use ids and keyed hashes, never personal
/// data. Row values are sealed with the store's view key, or with a stream's data key when the row
/// holds that stream's content (then erasing the stream makes every copy of the row unreadable,
/// wherever a stale copy of it lies in the store's files), bound to their view and key.
public struct ViewWriter {
    let reader: ViewReader

    /// The row stored under `key`, or nil.
    public func row(_ key: [UInt8]) throws -> [UInt8]? { try reader.row(key) }

    /// Stores `value` sealed under `key`, replacing any row there: with the views key, or with the
    /// data key of `stream` when the row holds that stream's content.
    /// - Throws: ``EventLogError/Code/keyDestroyed`` when `stream` was erased;
    ///   ``EventLogError/Code/invalidArgument`` when `stream` does not exist.
    public func put(_ key: [UInt8], _ value: [UInt8], sealedWithKeyOf stream: StreamID? = nil) throws {
        try put([(key, value)], sealedWithKeyOf: stream)
    }

    /// Stores each of `rows` as ``put(_:_:sealedWithKeyOf:)`` does, finding the sealing key once.
    public func put(_ rows: [(key: [UInt8], value: [UInt8])], sealedWithKeyOf stream: StreamID? = nil) throws {
        guard !rows.isEmpty else { return }
        var keyID: UInt32 = 0
        var sealingKey = reader.key
        if let stream {
            guard let id = try StreamIndex.keyID(of: stream, in: reader.txn) else {
                throw EventLogError(.invalidArgument, "a view row cannot be sealed with the key of stream \(stream), which does not exist",
                                    stream: stream)
            }
            keyID = id
            guard let found = try reader.keys.key(keyID, in: reader.txn) else {
                throw EventLogError(.keyDestroyed, "stream \(stream) was erased; no view row can hold its content", stream: stream)
            }
            sealingKey = found
        }
        for (key, value) in rows {
            let storedKey = reader.storedKey(key)
            let sealed = value.withUnsafeBytes {
                AEAD.sealBox($0, additionalData: reader.additionalData(storedKey), key: sealingKey)
            }
            try reader.txn.scrubAndPut(StoreLayout.views, storedKey, [UInt8](bigEndian: keyID) + sealed)
        }
    }

    /// Reads the rows at `keys` ahead (``ViewReader/prefetch(_:)``): then removing one that is not there costs no round
    /// trip either.
    @discardableResult
    public func prefetch(_ keys: some Collection<[UInt8]>) throws -> Bool { try reader.prefetch(keys) }

    /// Reads ahead what sealing rows with the data keys of `streams` looks up (their stream rows, then their keys), so
    /// that ``put(_:sealedWithKeyOf:)`` for each costs no round trip of its own to a server. Nothing on a local backend.
    public func prefetchSealingKeys(of streams: some Collection<StreamID>) throws {
        let txn = reader.txn
        guard txn.readsAhead, !streams.isEmpty else { return }
        try txn.prefetch(StoreLayout.streams, keys: streams.map { Array($0.uuid.bytes) })
        let keyIDs = Set(try streams.compactMap { try StreamRow.read($0, in: txn)?.keyID })
        try txn.prefetch(StoreLayout.keys, keys: keyIDs.sorted().map { [UInt8](bigEndian: $0) })
    }

    /// Removes the row at `key`, if any, overwriting its bytes first so that no copy of them is
    /// left in the page that held it.
    public func remove(_ key: [UInt8]) throws {
        try reader.txn.scrubAndDelete(StoreLayout.views, reader.storedKey(key))
    }

    /// Removes every row whose key starts with `keyPrefix` as ``remove(_:)`` does, without opening them
    /// (they may be sealed with a key destroyed in this transaction).
    public func removeRows(startingWith keyPrefix: [UInt8]) throws {
        let start = reader.storedKey(keyPrefix)
        var keys: [[UInt8]] = []
        try reader.txn.withCursor(StoreLayout.views) { cursor in
            var entry = try cursor.seek(atOrAfter: start)
            while let (storedKey, _) = entry, storedKey.starts(with: start) {
                keys.append(Array(storedKey))
                entry = try cursor.next()
            }
        }
        for key in keys { try reader.txn.scrubAndDelete(StoreLayout.views, key) }
    }

    /// The position of the first event the view has not folded yet; nil for a view never written.
    public func checkpoint() throws -> UInt64? { try reader.checkpoint() }

    /// The rows whose key starts with `keyPrefix`, in key order (collected, so the view can be
    /// changed while going through them).
    public func rows(startingWith keyPrefix: [UInt8]) throws -> [(key: [UInt8], value: [UInt8])] {
        var rows: [(key: [UInt8], value: [UInt8])] = []
        try reader.forEachRow(startingWith: keyPrefix) { rows.append(($0, $1)) }
        return rows
    }

    /// Records that the view has folded every event before `position`, in the same transaction as its rows.
    public func setCheckpoint(_ position: UInt64) throws {
        try reader.txn.put(StoreLayout.viewCheckpoints, reader.prefix, [UInt8](bigEndian: position))
    }
}

/// Read access to one view inside a read transaction.
public struct ViewReader {
    let txn: StoreTransaction
    let prefix: [UInt8]
    let key: SecureBytes
    let keys: KeyRing
    let storeID: [UInt8]

    func storedKey(_ key: [UInt8]) -> [UInt8] { prefix + key }

    /// `"view" | store id | stored key`: a row opens only in its own store, view and key.
    func additionalData(_ storedKey: [UInt8]) -> [UInt8] { Array("view".utf8) + storeID + storedKey }

    /// The opened row at `key`, or `nil`.
    /// - Throws: ``EventLogError/Code/keyDestroyed`` for a row sealed with an erased stream's key.
    public func row(_ key: [UInt8]) throws -> [UInt8]? {
        let storedKey = storedKey(key)
        guard let sealed = try txn.get(StoreLayout.views, storedKey) else { return nil }
        return try open(sealed, storedKey: storedKey)
    }

    /// Reads the rows at `keys` ahead, so that ``row(_:)`` and ``hasRow(_:)`` of each cost no round trip of their own
    /// to a server. Returns whether it did: nothing is read ahead from a local backend, where a lookup costs as little.
    @discardableResult
    public func prefetch(_ keys: some Collection<[UInt8]>) throws -> Bool {
        guard txn.readsAhead else { return false }
        if !keys.isEmpty { try txn.prefetch(StoreLayout.views, keys: keys.map(storedKey)) }
        return true
    }

    /// Whether a row is stored at `key`, without opening it.
    public func hasRow(_ key: [UInt8]) throws -> Bool {
        try txn.get(StoreLayout.views, storedKey(key)) != nil
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

    private func open(_ stored: UnsafeRawBufferPointer, storedKey: [UInt8]) throws -> [UInt8] {
        try Self.open(stored, storedKey: storedKey, viewsKey: key, keys: keys, storeID: storeID, in: txn)
    }

    /// A stored row, `key id u32 ‖ box`, opened: key id 0 is the views key, any other a data key; the box's associated
    /// data is `"view" ‖ store id ‖ stored key`. Reads and ``EventLog/verify(anchor:checkingStructure:progress:)`` alike.
    /// - Throws: ``EventLogError/Code/keyDestroyed`` for a row sealed with an erased stream's key;
    ///   ``EventLogError/Code/integrity`` for one that is malformed or does not authenticate.
    static func open(_ stored: UnsafeRawBufferPointer, storedKey: [UInt8], viewsKey: SecureBytes, keys: KeyRing, storeID: [UInt8],
                     in txn: StoreTransaction) throws -> [UInt8] {
        guard stored.count >= 4 else { throw EventLogError(.integrity, "a row of a view is malformed") }
        let keyID: UInt32 = stored.loadBigEndian(at: 0)
        var openingKey = viewsKey
        if keyID != 0 {
            guard let found = try keys.key(keyID, in: txn) else {
                throw EventLogError(.keyDestroyed, "a row of a view holds the content of an erased stream (data key \(keyID) was destroyed)")
            }
            openingKey = found
        }
        let sealed = UnsafeRawBufferPointer(rebasing: stored[4...])
        guard let value = AEAD.openBox(sealed, additionalData: Array("view".utf8) + storeID + storedKey, key: openingKey) else {
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
    /// a runner that folds one batch into many views pays for one commit, not one per view. On a server, their
    /// checkpoints are read together.
    public func updateViews<R>(_ names: [String], _ body: ([ViewWriter]) throws -> R) throws -> R {
        let prefixes = try names.map(Self.viewPrefix)
        return try writing { txn in
            if txn.readsAhead { try txn.prefetch(StoreLayout.viewCheckpoints, keys: prefixes) }
            return try body(prefixes.map {
                ViewWriter(reader: ViewReader(txn: txn, prefix: $0, key: keyHierarchy.views, keys: opener.keys, storeID: opener.storeID))
            })
        }
    }

    /// Runs `body` with read access to the view `name`, in one snapshot.
    public func readView<R>(_ name: String, _ body: (ViewReader) throws -> R) throws -> R {
        let prefix = try Self.viewPrefix(name)
        return try reading { txn in
            try body(ViewReader(txn: txn, prefix: prefix, key: keyHierarchy.views, keys: opener.keys, storeID: opener.storeID))
        }
    }

    /// Runs `body` with read access to several views (readers in the order of `names`), in one snapshot: a runner that
    /// reads where each of its views stands pays for one transaction, and on a server their checkpoints are read together.
    public func readViews<R>(_ names: [String], _ body: ([ViewReader]) throws -> R) throws -> R {
        let prefixes = try names.map(Self.viewPrefix)
        return try reading { txn in
            if txn.readsAhead { try txn.prefetch(StoreLayout.viewCheckpoints, keys: prefixes) }
            return try body(prefixes.map { ViewReader(txn: txn, prefix: $0, key: keyHierarchy.views, keys: opener.keys, storeID: opener.storeID) })
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
