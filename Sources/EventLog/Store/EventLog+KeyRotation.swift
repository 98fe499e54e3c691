import Foundation

/// What ``EventLog/rotateMasterKey(at:from:to:passphraseCost:waitingUpTo:options:)`` did.
public struct KeyRotationReport: Hashable, Sendable {
    /// Data keys re-wrapped (destroyed ones have nothing to re-wrap).
    public var dataKeys = 0
    /// Compression dictionaries sealed again.
    public var dictionaries = 0
    /// View rows sealed again (rows sealed with a data key need nothing: the data keys do not change).
    public var viewRows = 0
    /// The compaction that followed, which leaves no copy of the old wrappings in the file.
    public var compaction: CompactionReport?
}

extension EventLog {
    /// Replaces the master key: in **one** transaction, every data key, compression dictionary and
    /// views-key row is sealed again under the new key's sub-keys, and the key check is replaced; no
    /// event record is rewritten. The subject-hashing key and the checkpoint signing key stay what
    /// they were (subject hashes are in records, checkpoints with auditors): they are kept wrapped
    /// under the new key in `meta/stable-keys`. Then the store is compacted, so no copy of an old
    /// wrapping is left in the file.
    ///
    /// A kill at any moment leaves the store readable with exactly one of the two keys (the
    /// transaction commits or not; the compaction replaces the file atomically). Needs the store to
    /// itself: waits up to `timeout` for other opens to close, else ``EventLogError/Code/storeBusy``.
    /// Afterwards the old key is refused with ``EventLogError/Code/wrongKey``.
    @discardableResult
    public static func rotateMasterKey(at directory: String, from current: KeySource, to new: KeySource,
                                       passphraseCost: PassphraseCost = .moderate,
                                       waitingUpTo timeout: Duration = .seconds(10),
                                       options: EventLogOptions = EventLogOptions()) throws -> KeyRotationReport {
        do {
            var report = try rotate(at: directory, from: current, to: new, passphraseCost: passphraseCost, timeout: timeout, options: options)
            report.compaction = try compact(at: directory, waitingUpTo: timeout, options: options)
            return report
        } catch {
            throw EventLogError.storage(error)
        }
    }

    private static func rotate(at directory: String, from current: KeySource, to new: KeySource,
                               passphraseCost: PassphraseCost, timeout: Duration, options: EventLogOptions) throws -> KeyRotationReport {
        let environment = try StoreEnvironment.open(directory, .exclusive(timeout), options: options)
        try environment.read { txn in try StoreOpening.checkFormat(in: txn) }
        return try environment.write { txn in
            let storeID = try StoreOpening.storeID(in: txn)
            let oldMaster = try StoreOpening.masterKey(for: current, directory: directory, of: environment.backend, in: txn)
            try StoreOpening.checkKey(KeyHierarchy(master: oldMaster), storeID: storeID, in: txn)
            let old = try KeyHierarchy.load(master: oldMaster, storeID: storeID, in: txn)
            var kdf: [UInt8]?
            let newMaster: SecureBytes
            switch new {
            case .keyFile(let path):
                try StoreOpening.refuseKeyInside(directory, of: environment.backend, keyPath: path)
                newMaster = try MasterKeyFile.read(at: path)
            case .passphrase(let passphrase):
                let salt = Sodium.randomBytes(count: MasterKeyFile.saltBytes)
                newMaster = try MasterKeyFile.stretch(passphrase: passphrase, salt: salt, cost: passphraseCost)
                kdf = StoreOpening.kdfEntry(cost: passphraseCost, salt: salt)
            }
            guard !newMaster.withUnsafeBytes({ new in oldMaster.withUnsafeBytes { new.elementsEqual($0) } }) else {
                throw EventLogError(.invalidArgument, "the new key is the key the store has now")
            }
            let fresh = KeyHierarchy(master: newMaster, stable: (old.subjectHashing, old.checkpointSigning))
            var report = KeyRotationReport()
            report.dataKeys = try reseal(StoreLayout.keys, in: txn) { key, box in
                guard key.count == 4 else { throw EventLogError(.integrity, "a data key's id is malformed; the data file is damaged") }
                let id: UInt32 = key.loadBigEndian(at: 0)
                let aad = Array("key".utf8) + storeID + [UInt8](bigEndian: id)
                guard let plain = AEAD.openBox(box, additionalData: aad, key: old.keyWrapping) else {
                    throw EventLogError(.integrity, "wrapped data key \(id) does not authenticate")
                }
                return plain.withUnsafeBytes { AEAD.sealBox($0, additionalData: aad, key: fresh.keyWrapping) }
            }
            report.dictionaries = try reseal(StoreLayout.dictionaries, in: txn) { key, box in
                let aad = Array("dictionary".utf8) + storeID + Array(key)
                guard let plain = AEAD.openBox(box, additionalData: aad, key: old.storeMetadata) else {
                    throw EventLogError(.integrity, "a compression dictionary does not authenticate")
                }
                return plain.withUnsafeBytes { AEAD.sealBox($0, additionalData: aad, key: fresh.storeMetadata) }
            }
            report.viewRows = try reseal(StoreLayout.views, in: txn) { key, stored in
                guard stored.count >= 4, stored.loadBigEndian(at: 0) as UInt32 == 0 else { return nil }  // data-key rows stay
                let aad = Array("view".utf8) + storeID + Array(key)
                guard let plain = AEAD.openBox(UnsafeRawBufferPointer(rebasing: stored[4...]), additionalData: aad, key: old.views) else {
                    throw EventLogError(.integrity, "a row of a view does not authenticate")
                }
                return [0, 0, 0, 0] + plain.withUnsafeBytes { AEAD.sealBox($0, additionalData: aad, key: fresh.views) }
            }
            let check = [UInt8](repeating: 0, count: 32).withUnsafeBytes {
                AEAD.sealBox($0, additionalData: StoreOpening.keyCheckAdditionalData(storeID), key: fresh.keyCheck)
            }
            try txn.put(StoreLayout.meta, StoreLayout.keyCheckKey, check)
            try txn.put(StoreLayout.meta, StoreLayout.stableKeysKey, fresh.wrappedStableKeys(storeID: storeID))
            if let kdf {
                try txn.put(StoreLayout.meta, StoreLayout.passphraseKDFKey, kdf)
            } else {
                try txn.scrubAndDelete(StoreLayout.meta, StoreLayout.passphraseKDFKey)
            }
            return report
        }
    }

    /// Replaces every value of `database` with `transform(key, value)` (nil: left as it is), in
    /// place (same length), so the current pages keep no copy of the old value. Returns how many.
    private static func reseal(_ database: String, in txn: StoreTransaction,
                               _ transform: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> [UInt8]?) throws -> Int {
        var changed: [([UInt8], [UInt8])] = []
        try txn.withCursor(database) { cursor in
            var entry = try cursor.first()
            while let (key, value) = entry {
                if let new = try transform(key, value) { changed.append((Array(key), new)) }
                entry = try cursor.next()
            }
        }
        for (key, value) in changed { try txn.put(database, key, value) }
        return changed.count
    }

    /// The store directory's lock, held exclusively: waits up to `timeout` for other opens to close.
    static func exclusiveLock(on directory: String, waitingUpTo timeout: Duration) throws -> DirectoryLock {
        let clock = ContinuousClock()
        let start = clock.now
        var lock = try DirectoryLock(directory, exclusive: true, wait: false)
        while lock == nil, clock.now - start < timeout {
            Thread.sleep(forTimeInterval: 0.05)
            lock = try DirectoryLock(directory, exclusive: true, wait: false)
        }
        guard let lock else {
            throw EventLogError(.storeBusy, "the store at \(directory) is open in another process (or elsewhere in this one); close it and try again",
                                path: directory)
        }
        return lock
    }
}
