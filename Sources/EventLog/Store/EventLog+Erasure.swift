import Foundation

/// What ``EventLog/destroyKeys(of:updatingViews:_:)`` did.
public struct KeyDestruction: Hashable, Sendable {
    /// Streams whose data key was destroyed now.
    public var destroyed: [StreamID] = []
    /// Streams whose data key had been destroyed before (erasing again changes nothing).
    public var alreadyDestroyed: [StreamID] = []
    /// Streams with no events in the log.
    public var unknown: [StreamID] = []
}

extension EventLog {
    /// Crypto-shredding: destroys the data keys of `streams`, so that their records (and any view row
    /// sealed with those keys) can never be read again, by anyone, with any key. Their leaf hashes
    /// stay checkable. In the same transaction, `body` updates the views named `views` (for example,
    /// marks the sessions erased), so the keys and the views change together or not at all.
    ///
    /// The wrapped keys are overwritten before they are deleted, but older copies of LMDB pages
    /// stay in `data.mdb` until reused: run ``compact(at:waitingUpTo:options:)`` after closing the log to
    /// leave no copy in the file.
    /// - Throws: ``EventLogError/Code/invalidArgument`` for a stream under the store's audit key
    ///   (it holds consent proof and is never destroyed); then nothing is destroyed.
    @discardableResult
    public func destroyKeys(of streams: [StreamID], updatingViews views: [String] = [],
                            _ body: ([ViewWriter]) throws -> Void = { _ in }) throws -> KeyDestruction {
        let prefixes = try views.map(Self.viewPrefix)
        let keys = opener.keys
        return try writing { txn in
            var outcome = KeyDestruction()
            var ids: [UInt32] = []
            for stream in streams {
                guard let id = try StreamIndex.keyID(of: stream, in: txn) else {
                    outcome.unknown.append(stream)
                    continue
                }
                guard id != KeyRing.auditKeyID else {
                    throw EventLogError(.invalidArgument, "stream \(stream) is sealed with the store's audit key, which is never destroyed",
                                        stream: stream)
                }
                ids.append(id)
                if try txn.get(StoreLayout.keys, [UInt8](bigEndian: id)) == nil {
                    outcome.alreadyDestroyed.append(stream)
                } else {
                    outcome.destroyed.append(stream)
                }
            }
            for stream in streams {  // the discardable key goes too
                if let entry = try txn.get(StoreLayout.discardableKeys, stream.uuid.bytes), entry.count == 4 {
                    ids.append(entry.loadBigEndian(at: 0))
                }
            }
            for id in Set(ids) { try keys.destroy(id, in: txn) }
            try body(prefixes.map {
                ViewWriter(reader: ViewReader(txn: txn, prefix: $0, key: keyHierarchy.views, keys: keys, storeID: opener.storeID))
            })
            return outcome
        }
    }

    /// Destroys the discardable data keys of `streams` (see ``ProposedEvent/discardable``): their
    /// discardable events become unreadable by any means; their other events stay. Returns how many
    /// keys were destroyed (a stream with no discardable events, or whose key is gone already, has none).
    @discardableResult
    public func destroyDiscardableKeys(of streams: [StreamID]) throws -> Int {
        let keys = opener.keys
        return try writing { txn in
            var destroyed = 0
            for stream in streams {
                guard let entry = try txn.get(StoreLayout.discardableKeys, stream.uuid.bytes), entry.count == 4 else { continue }
                if try keys.destroy(entry.loadBigEndian(at: 0), in: txn) { destroyed += 1 }
            }
            return destroyed
        }
    }

    /// Whether `stream` has a discardable key that still exists (it holds discardable events that can
    /// still be read).
    public func hasDiscardableKey(_ stream: StreamID) throws -> Bool {
        try reading { txn in
            guard let entry = try txn.get(StoreLayout.discardableKeys, stream.uuid.bytes), entry.count == 4 else { return false }
            return try txn.get(StoreLayout.keys, [UInt8](bigEndian: entry.loadBigEndian(at: 0) as UInt32)) != nil
        }
    }

    /// Whether the data key of `stream` was destroyed; nil for a stream with no events.
    public func isErased(_ stream: StreamID) throws -> Bool? {
        try reading { txn in
            guard let id = try StreamIndex.keyID(of: stream, in: txn) else { return nil }
            return try txn.get(StoreLayout.keys, [UInt8](bigEndian: id)) == nil
        }
    }
}
