import Foundation
import Synchronization

/// The compression dictionaries of a store, kept encrypted (they are trained on payloads) in the
/// `dictionaries` database, and which one new records use.
final class DictionarySet: Sendable {
    /// The loaded dictionaries by id, and the id new records use (0: none).
    private let loaded = Mutex<(byID: [UInt16: CompressionDictionary], currentID: UInt16)>(([:], 0))
    private let metadataKey: SecureBytes
    private let storeID: [UInt8]

    init(metadataKey: SecureBytes, storeID: [UInt8]) {
        self.metadataKey = metadataKey
        self.storeID = storeID
    }

    /// `"dictionary" | store id | dictionary id u16`
    private func additionalData(_ id: UInt16) -> [UInt8] {
        Array("dictionary".utf8) + storeID + [UInt8](bigEndian: id)
    }

    var current: CompressionDictionary? {
        loaded.withLock { $0.byID[$0.currentID] }
    }

    func dictionary(_ id: UInt16) -> CompressionDictionary? {
        loaded.withLock { $0.byID[id] }
    }

    /// Makes sure dictionary `id` is loaded, reloading the set once if it is not (another process
    /// may have installed it since this one opened the store).
    func ensureLoaded(_ id: UInt16, in txn: StoreTransaction) throws {
        if id != 0, dictionary(id) == nil { try load(in: txn) }
    }

    /// Loads every stored dictionary and the current choice.
    func load(in txn: StoreTransaction) throws {
        var byID: [UInt16: CompressionDictionary] = [:]
        try txn.withCursor(StoreLayout.dictionaries) { cursor in
            var entry = try cursor.first()
            while let (key, value) = entry {
                guard key.count == 2 else { throw EventLogError(.storeUnusable, "a dictionary key is malformed") }
                let id: UInt16 = key.loadBigEndian(at: 0)
                guard let bytes = AEAD.openBox(value, additionalData: additionalData(id), key: metadataKey)
                else { throw EventLogError(.integrity, "compression dictionary \(id) does not authenticate") }
                byID[id] = try CompressionDictionary(id: id, bytes: bytes, level: Compressor.level)
                entry = try cursor.next()
            }
        }
        let current = try txn.get(StoreLayout.meta, StoreLayout.currentDictionaryKey).map { $0.loadBigEndian(at: 0, as: UInt16.self) } ?? 0
        loaded.withLock { $0 = (byID, current) }
    }

    /// Stores a new dictionary and makes it the one new records use; returns its id.
    func install(_ bytes: [UInt8], in txn: StoreTransaction) throws -> UInt16 {
        let highest = try txn.withCursor(StoreLayout.dictionaries) { cursor in
            try cursor.last().map { entry -> UInt16 in
                guard entry.key.count == 2 else { throw EventLogError(.storeUnusable, "a dictionary key is malformed") }
                return entry.key.loadBigEndian(at: 0)
            }
        } ?? 0
        guard highest < UInt16.max else { throw EventLogError(.invalidArgument, "the store holds the most dictionaries it can") }
        let id = highest + 1
        let dictionary = try CompressionDictionary(id: id, bytes: bytes, level: Compressor.level)
        let sealed = bytes.withUnsafeBytes { AEAD.sealBox($0, additionalData: additionalData(id), key: metadataKey) }
        try txn.put(StoreLayout.dictionaries, [UInt8](bigEndian: id), sealed)
        try txn.put(StoreLayout.meta, StoreLayout.currentDictionaryKey, [UInt8](bigEndian: id))
        loaded.withLock {
            $0.byID[id] = dictionary
            $0.currentID = id
        }
        return id
    }
}
