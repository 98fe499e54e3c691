import Foundation

/// Authenticates, decrypts and decompresses records back into events.
struct RecordOpener: Sendable {
    let storeID: [UInt8]
    let keys: KeyRing
    let dictionaries: DictionarySet
    let decompressors: DecompressorPool

    /// Opens a record sealed on its own with its transaction's nonce base and a given decompressor, finding its data key with
    /// `findKey` (nil: destroyed).
    func open(_ record: UnsafeRawBufferPointer, position: UInt64, nonceBase: NonceBase?, decompressor: Decompressor,
              key findKey: (UInt32) throws -> SecureBytes?) throws -> RecordedEvent {
        var results: [Result<RecordedEvent, any Error>] = []
        open(SealedUnit(position: position, record: record), wanted: [0], nonceBase: nonceBase, decompressor: decompressor,
             key: findKey, transform: { $0 }, into: &results)
        return try results[0].get()
    }

    /// Opens the records of `unit` at the offsets `wanted` (in the unit) with its transaction's nonce base and a given
    /// decompressor, finding its data key with `findKey` (nil: destroyed) and its dictionary with `findDictionary` (by
    /// default, the store's), applies `transform` to each event, and appends one result for each wanted record to
    /// `results`. Safe to call from several threads at once when all three are.
    func open<T>(_ unit: SealedUnit, wanted: [Int], nonceBase: NonceBase?, decompressor: Decompressor,
                 key findKey: (UInt32) throws -> SecureBytes?,
                 dictionary findDictionary: ((UInt16) -> CompressionDictionary?)? = nil,
                 transform: (RecordedEvent) throws -> T, into results: inout [Result<T, any Error>]) {
        collect(unit, wanted: wanted, nonceBase: nonceBase, decompressor: decompressor, key: findKey,
                dictionary: findDictionary, into: &results) { body, header, position in
            let type = try Self.type(of: body, header: header, position: position, names: decompressor)
            return try transform(RecordedEvent(
                id: header.eventID, stream: StreamID(header.stream), streamNumber: header.streamNumber,
                position: position, type: type.name, data: Array(body[(type.count + 1)...]),
                recordedAtMilliseconds: header.recordedAtMilliseconds))
        }
    }

    /// Checks the wanted records of `unit` as ``open(_:wanted:nonceBase:decompressor:key:dictionary:transform:into:)`` would
    /// open them (leaf hash, authentication, decompression, the body's shape) without making events of them: `verify`'s
    /// check of the content. Appends the stream and number each header gives, or the failure, to `results`.
    func check(_ unit: SealedUnit, wanted: [Int], nonceBase: NonceBase?, decompressor: Decompressor,
               key findKey: (UInt32) throws -> SecureBytes?,
               dictionary findDictionary: ((UInt16) -> CompressionDictionary?)? = nil,
               into results: inout [Result<(stream: StreamID, number: UInt64), any Error>]) {
        collect(unit, wanted: wanted, nonceBase: nonceBase, decompressor: decompressor, key: findKey,
                dictionary: findDictionary, into: &results) { body, header, position in
            _ = try Self.type(of: body, header: header, position: position, names: decompressor)
            return (StreamID(header.stream), header.streamNumber)
        }
    }

    /// What can be checked of the wanted records of `unit` without a key: their headers, the block's shape and their leaf
    /// hashes. Appends the stream and number each header gives, or the failure, to `results`.
    static func checkWithoutKey(_ unit: SealedUnit, wanted: [Int], nonceBase: NonceBase?,
                                into results: inout [Result<(stream: StreamID, number: UInt64), any Error>]) {
        if unit.isSingle {
            let (record, position) = (unit.first, unit.position)
            results.append(Result {
                try withCheckedSingle(record, position: position, nonceBase: nonceBase) { header, _ in
                    (StreamID(header.stream), header.streamNumber)
                }
            })
            return
        }
        let shape = Result { try BlockShape(unit, nonceBase: nonceBase) }
        for offset in wanted {
            results.append(shape.flatMap { shape in
                Result {
                    try shape.checkLeaf(offset)
                    return (StreamID(shape.headers[offset].stream), shape.headers[offset].streamNumber)
                }
            })
        }
    }

    /// What opening a unit gives for one wanted record: its body (`type length | type | data`, valid only during the call),
    /// header and position, or what kept it from being opened.
    private enum Opened {
        case body(UnsafeRawBufferPointer, RecordHeader, UInt64)
        case failure(any Error)
    }

    /// ``withBodies(of:wanted:nonceBase:decompressor:key:dictionary:_:)``, appending to `results` for each wanted record
    /// what `make` makes of its body, header and position, or what kept it from being opened.
    private func collect<T>(_ unit: SealedUnit, wanted: [Int], nonceBase: NonceBase?, decompressor: Decompressor,
                            key findKey: (UInt32) throws -> SecureBytes?, dictionary findDictionary: ((UInt16) -> CompressionDictionary?)?,
                            into results: inout [Result<T, any Error>],
                            _ make: (UnsafeRawBufferPointer, RecordHeader, UInt64) throws -> T) {
        withBodies(of: unit, wanted: wanted, nonceBase: nonceBase, decompressor: decompressor, key: findKey,
                   dictionary: findDictionary) { opened in
            switch opened {
            case .failure(let error): results.append(.failure(error))
            case .body(let body, let header, let position): results.append(Result { try make(body, header, position) })
            }
        }
    }

    /// Checks the wanted records' leaf hashes and the unit's shape, authenticates, decrypts and decompresses the unit once,
    /// and hands `deliver` what each wanted record gives, in order. Not generic, and making no array for a record on its
    /// own: a generic caller from another module (`readStream` with the caller's type) runs unspecialised, and would look
    /// up the metadata of its result types for every record.
    private func withBodies(of unit: SealedUnit, wanted: [Int], nonceBase: NonceBase?, decompressor: Decompressor,
                            key findKey: (UInt32) throws -> SecureBytes?, dictionary findDictionary: ((UInt16) -> CompressionDictionary?)?,
                            _ deliver: (Opened) -> Void) {
        if unit.isSingle {
            do {
                try withBody(of: unit.first, position: unit.position, nonceBase: nonceBase, decompressor: decompressor,
                             key: findKey, dictionary: findDictionary) { deliver(.body($0, $1, unit.position)) }
            } catch {
                deliver(.failure(error))
            }
            return
        }
        for failure in openBlock(unit, wanted: wanted, nonceBase: nonceBase, decompressor: decompressor, key: findKey,
                                 dictionary: findDictionary, deliver) {
            deliver(.failure(failure))
        }
    }

    /// ``withBodies(of:wanted:nonceBase:decompressor:key:dictionary:_:)`` for a block: delivers the wanted records' bodies
    /// when the block opens, and returns a failure for each wanted record when it does not (empty when it did).
    private func openBlock(_ unit: SealedUnit, wanted: [Int], nonceBase: NonceBase?, decompressor: Decompressor,
                           key findKey: (UInt32) throws -> SecureBytes?, dictionary findDictionary: ((UInt16) -> CompressionDictionary?)?,
                           _ deliver: (Opened) -> Void) -> [any Error] {
        let shape: BlockShape
        do {
            shape = try BlockShape(unit, nonceBase: nonceBase)
        } catch {
            return wanted.map { _ in error }
        }
        let leaves: [(any Error)?] = wanted.map { offset in
            do {
                try shape.checkLeaf(offset)
                return nil
            } catch {
                return error
            }
        }
        let head = shape.headers[0]
        let failed: (BlockShape.Failure) -> [any Error] = { failure in
            zip(wanted, leaves).map { offset, leaf in leaf ?? shape.error(failure, at: offset) }
        }
        let key: SecureBytes
        do {
            guard let found = try findKey(head.keyID) else {
                return zip(wanted, leaves).map { offset, leaf -> any Error in
                    let position = shape.position(offset)
                    return leaf ?? EventLogError(
                        .keyDestroyed, "record at position \(position) cannot be read: its data key \(head.keyID) was destroyed (erased)",
                        stream: StreamID(head.stream), position: position)
                }
            }
            key = found
        } catch {
            return wanted.map { _ in error }
        }
        let sealed = UnsafeRawBufferPointer(rebasing: unit.first[shape.sealedRange])
        do {
            return try withUnsafeTemporaryAllocation(byteCount: sealed.count - AEAD.tagBytes, alignment: 8) { opened in
                let authentic = shape.withNonce { nonce in
                    storeID.withUnsafeBytes { storeID in
                        shape.withHeaders { headers in
                            RecordLayout.withAdditionalData(storeID: storeID, position: unit.position, headers: headers) { aad in
                                AEAD.open(sealed, additionalData: aad, nonce: nonce, key: key, into: opened)
                            }
                        }
                    }
                }
                guard authentic else { throw BlockShape.Failure("does not authenticate (damaged, moved, swapped or from another store)") }
                func split(_ plaintext: UnsafeRawBufferPointer) -> [any Error] {
                    for (offset, leaf) in zip(wanted, leaves) {
                        if let leaf {
                            deliver(.failure(leaf))
                        } else {
                            deliver(.body(UnsafeRawBufferPointer(rebasing: plaintext[shape.bodyRange(offset)]), shape.headers[offset], shape.position(offset)))
                        }
                    }
                    return []
                }
                if head.codec == .stored {
                    guard opened.count == shape.bodyCount else { throw BlockShape.Failure("has a body of the wrong length") }
                    return split(UnsafeRawBufferPointer(opened))
                }
                var dictionary: CompressionDictionary?
                if head.codec == .zstdDictionary {
                    guard let found = findDictionary?(head.dictionaryID) ?? dictionaries.dictionary(head.dictionaryID) else {
                        throw BlockShape.Failure("names compression dictionary \(head.dictionaryID), which the store lacks")
                    }
                    dictionary = found
                }
                return try withUnsafeTemporaryAllocation(byteCount: shape.bodyCount, alignment: 8) { body in
                    guard decompressor.decompress(UnsafeRawBufferPointer(opened), dictionary: dictionary, into: body) else {
                        throw BlockShape.Failure("does not decompress")
                    }
                    return split(UnsafeRawBufferPointer(body))
                }
            }
        } catch let failure as BlockShape.Failure {
            return failed(failure)
        } catch {
            return wanted.map { _ in error }
        }
    }

    /// Checks the leaf hash, authenticates, decrypts and decompresses a record sealed on its own, and hands its body
    /// (`type length | type | data`, valid only during the call) to `use`.
    private func withBody<R>(of record: UnsafeRawBufferPointer, position: UInt64, nonceBase: NonceBase?, decompressor: Decompressor,
                             key findKey: (UInt32) throws -> SecureBytes?, dictionary findDictionary: ((UInt16) -> CompressionDictionary?)?,
                             _ use: (UnsafeRawBufferPointer, RecordHeader) throws -> R) throws -> R {
        try Self.withCheckedSingle(record, position: position, nonceBase: nonceBase) { header, nonce in
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
        guard Int(header.bodyCount) <= RecordBody.maximumCount else {
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

    /// Checks what needs no key of a record sealed on its own (its header, its nonce base, its leaf hash) and hands
    /// `use` its header and nonce.
    private static func withCheckedSingle<R>(_ record: UnsafeRawBufferPointer, position: UInt64, nonceBase: NonceBase?,
                                             _ use: (RecordHeader, UnsafeRawBufferPointer) throws -> R) throws -> R {
        guard record.count >= RecordLayout.minimumCount, let header = RecordHeader(parsing: record), header.kind == .single else {
            throw EventLogError.integrity(position, "is malformed (\(record.count) bytes, header unreadable)")
        }
        guard let nonceBase else { throw EventLogError.integrity(position, "has no nonce base in nonce-bases") }
        return try nonceBase.withNonce(for: position) { nonce in
            guard leafHashMatches(record, position: position, nonce: nonce) else {
                throw EventLogError.integrity(position, "does not match its leaf hash (damaged or moved)")
            }
            return try use(header, nonce)
        }
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
