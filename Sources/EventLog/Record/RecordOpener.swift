import Foundation

/// Authenticates, decrypts and decompresses records back into events.
struct RecordOpener: Sendable {
    let storeID: [UInt8]
    let keys: KeyRing
    let dictionaries: DictionarySet
    let decompressors: DecompressorPool

    /// Opens the record stored at `position`, checking its leaf hash first. Any damage, a record moved from another position or
    /// store, or a destroyed key is a thrown ``EventLogError`` naming the position; never wrong bytes.
    func open(_ record: UnsafeRawBufferPointer, position: UInt64, in txn: StoreTransaction) throws -> RecordedEvent {
        var bases = NonceBaseCursor()
        let base = try bases.base(for: position, in: txn)
        if let header = RecordHeader(parsing: record) { try dictionaries.ensureLoaded(header.dictionaryID, in: txn) }
        return try decompressors.withDecompressor { decompressor in
            try open(record, position: position, nonceBase: base, decompressor: decompressor) { try keys.key($0, in: txn) }
        }
    }

    /// Opens a record with its transaction's nonce base and a given decompressor, finding its data
    /// key with `findKey` (nil: destroyed) and its dictionary with `findDictionary` (by default, the store's).
    /// Safe to call from several threads at once when both are.
    func open(_ record: UnsafeRawBufferPointer, position: UInt64, nonceBase: NonceBase?, decompressor: Decompressor,
              key findKey: (UInt32) throws -> SecureBytes?,
              dictionary findDictionary: ((UInt16) -> CompressionDictionary?)? = nil) throws -> RecordedEvent {
        try withBody(of: record, position: position, nonceBase: nonceBase, decompressor: decompressor, key: findKey,
                     dictionary: findDictionary) { body, header in
            let type = try Self.type(of: body, header: header, position: position, names: decompressor)
            return RecordedEvent(
                id: header.eventID, stream: StreamID(header.stream), streamNumber: header.streamNumber,
                position: position, type: type.name, data: Array(body[(type.count + 1)...]),
                recordedAtMilliseconds: header.recordedAtMilliseconds)
        }
    }

    /// Checks a record as ``open(_:position:nonceBase:decompressor:key:dictionary:)`` would open it (leaf hash,
    /// authentication, decompression, the body's shape) without making an event of it: `verify`'s check of the
    /// content. Returns the stream and number its header gives.
    func check(_ record: UnsafeRawBufferPointer, position: UInt64, nonceBase: NonceBase?, decompressor: Decompressor,
               key findKey: (UInt32) throws -> SecureBytes?,
               dictionary findDictionary: ((UInt16) -> CompressionDictionary?)? = nil) throws -> (stream: StreamID, number: UInt64) {
        try withBody(of: record, position: position, nonceBase: nonceBase, decompressor: decompressor, key: findKey,
                     dictionary: findDictionary) { body, header in
            _ = try Self.type(of: body, header: header, position: position, names: decompressor)
            return (StreamID(header.stream), header.streamNumber)
        }
    }

    /// Checks the leaf hash, authenticates, decrypts and decompresses the record, and hands its body
    /// (`type length | type | data`, valid only during the call) to `use`.
    private func withBody<R>(of record: UnsafeRawBufferPointer, position: UInt64, nonceBase: NonceBase?, decompressor: Decompressor,
                             key findKey: (UInt32) throws -> SecureBytes?, dictionary findDictionary: ((UInt16) -> CompressionDictionary?)?,
                             _ use: (UnsafeRawBufferPointer, RecordHeader) throws -> R) throws -> R {
        guard record.count >= RecordLayout.minimumCount, let header = RecordHeader(parsing: record) else {
            throw EventLogError.integrity(position, "is malformed (\(record.count) bytes, header unreadable)")
        }
        guard let nonceBase else {
            throw EventLogError.integrity(position, "has no nonce base in nonce-bases")
        }
        return try nonceBase.withNonce(for: position) { nonce in
            guard Self.leafHashMatches(record, position: position, nonce: nonce) else {
                throw EventLogError.integrity(position, "does not match its leaf hash (damaged or moved)")
            }
            guard let key = try findKey(header.keyID) else {
                throw EventLogError(.keyDestroyed,
                                    "record at position \(position) cannot be read: its data key \(header.keyID) was destroyed (erased)",
                                    stream: StreamID(header.stream), position: position)
            }
            let sealed = UnsafeRawBufferPointer(rebasing: record[RecordLayout.ciphertextOffset...])
            let headerBytes = UnsafeRawBufferPointer(rebasing: record[0..<RecordHeader.byteCount])
            return try withUnsafeTemporaryAllocation(byteCount: sealed.count - AEAD.tagBytes, alignment: 8) { opened in
                let authentic = storeID.withUnsafeBytes { storeID in
                    RecordLayout.withAdditionalData(storeID: storeID, position: position, header: headerBytes) { aad in
                        AEAD.open(sealed, additionalData: aad, nonce: nonce, key: key, into: opened)
                    }
                }
                guard authentic else {
                    throw EventLogError.integrity(position, "does not authenticate (damaged, moved, swapped or from another store)")
                }
                if header.codec == .stored { return try use(UnsafeRawBufferPointer(opened), header) }
                return try decompress(UnsafeRawBufferPointer(opened), header: header, position: position, with: decompressor,
                                      dictionary: findDictionary) { try use($0, header) }
            }
        }
    }

    private func decompress<R>(_ input: UnsafeRawBufferPointer, header: RecordHeader, position: UInt64, with decompressor: Decompressor,
                               dictionary findDictionary: ((UInt16) -> CompressionDictionary?)?,
                               _ use: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        var dictionary: CompressionDictionary?
        if header.codec == .zstdDictionary {
            guard let found = findDictionary?(header.dictionaryID) ?? dictionaries.dictionary(header.dictionaryID) else {
                throw EventLogError.integrity(position, "names compression dictionary \(header.dictionaryID), which the store lacks")
            }
            dictionary = found
        }
        // A body is a type (at most 1 + 255 bytes) and data: a larger declared size is damage, not a size to allocate.
        guard Int(header.bodyCount) <= 256 + ProposedEvent.maximumDataCount else {
            throw EventLogError.integrity(position, "declares a body of \(header.bodyCount) bytes, more than an event can hold")
        }
        return try withUnsafeTemporaryAllocation(byteCount: Int(header.bodyCount), alignment: 8) { body in
            guard decompressor.decompress(input, dictionary: dictionary, into: body) else {
                throw EventLogError.integrity(position, "does not decompress")
            }
            return try use(UnsafeRawBufferPointer(body))
        }
    }

    /// A body's event type (`type length | type | data`) and its length in bytes, checked against the header
    /// and the body.
    private static func type(of body: UnsafeRawBufferPointer, header: RecordHeader, position: UInt64,
                             names: Decompressor) throws -> (name: String, count: Int) {
        guard body.count == Int(header.bodyCount) else { throw EventLogError.integrity(position, "has a body of the wrong length") }
        guard let count = body.first.map(Int.init), count > 0, body.count > count,
              let name = names.typeName(UnsafeRawBufferPointer(rebasing: body[1...count])) else {
            throw EventLogError.integrity(position, "has a malformed event type")
        }
        return (name, count)
    }

    /// Whether the leaf hash stored in the record matches the record's bytes at `position`.
    static func leafHashMatches(_ record: UnsafeRawBufferPointer, position: UInt64, nonce: UnsafeRawBufferPointer) -> Bool {
        guard record.count >= RecordLayout.minimumCount else { return false }
        return withUnsafeTemporaryAllocation(byteCount: SHA256.digestBytes, alignment: 8) { computed in
            RecordLayout.leafHash(position: position, record: record, nonce: nonce, into: computed)
            // Not secret (the stored hash is in clear), so memcmp, not a constant-time compare.
            return memcmp(computed.baseAddress!, record.baseAddress! + RecordLayout.leafOffset, SHA256.digestBytes) == 0
        }
    }
}
