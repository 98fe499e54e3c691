import Foundation

/// The clear, fixed-size header at the start of every record in the `events` database.
///
/// Layout (all integers big-endian), 60 bytes:
/// `format u8 | codec u8 | dictionary id u16 | key id u32 | stream id 16 | stream number u64 |
///  recorded-at ms i64 | event id 16 | payload length u32`
struct RecordHeader: Equatable, Sendable {
    static let byteCount = 60

    /// The record format byte: how the record's ciphertext is stored (docs/FORMAT.md §5, §5.8).
    enum Kind: UInt8, Sendable {
        /// Sealed on its own: its ciphertext follows its leaf hash.
        case single = 1
        /// The first record of a block: the block's ciphertext, holding every member's body, follows its record count.
        case blockHead = 2
        /// A later record of a block: no ciphertext, only its distance back to the block's first record.
        case blockMember = 3
    }

    var kind: Kind = .single
    var codec: Codec
    var dictionaryID: UInt16
    var keyID: UInt32
    var stream: UUID
    var streamNumber: UInt64
    var recordedAtMilliseconds: Int64
    var eventID: UUID
    /// Length of the plaintext body before compression.
    var bodyCount: UInt32

    func write(into out: UnsafeMutableRawBufferPointer) {
        precondition(out.count >= Self.byteCount)
        out[0] = kind.rawValue
        out[1] = codec.rawValue
        out.storeBigEndian(dictionaryID, at: 2)
        out.storeBigEndian(keyID, at: 4)
        withUnsafeBytes(of: stream.uuid) { UnsafeMutableRawBufferPointer(rebasing: out[8..<24]).copyMemory(from: $0) }
        out.storeBigEndian(streamNumber, at: 24)
        out.storeBigEndian(recordedAtMilliseconds, at: 32)
        withUnsafeBytes(of: eventID.uuid) { UnsafeMutableRawBufferPointer(rebasing: out[40..<56]).copyMemory(from: $0) }
        out.storeBigEndian(bodyCount, at: 56)
    }

    /// Parses a header; nil when the bytes cannot be a header.
    init?(parsing bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= Self.byteCount, let kind = Kind(rawValue: bytes[0]),
              let codec = Codec(rawValue: bytes[1]) else { return nil }
        self.kind = kind
        self.codec = codec
        dictionaryID = bytes.loadBigEndian(at: 2)
        keyID = bytes.loadBigEndian(at: 4)
        stream = UUID(bytes: UnsafeRawBufferPointer(rebasing: bytes[8..<24]))
        streamNumber = bytes.loadBigEndian(at: 24)
        recordedAtMilliseconds = bytes.loadBigEndian(at: 32)
        eventID = UUID(bytes: UnsafeRawBufferPointer(rebasing: bytes[40..<56]))
        bodyCount = bytes.loadBigEndian(at: 56)
        guard (codec == .zstdDictionary) == (dictionaryID != 0) else { return nil }
    }

    init(kind: Kind = .single, codec: Codec, dictionaryID: UInt16, keyID: UInt32, stream: UUID, streamNumber: UInt64,
         recordedAtMilliseconds: Int64, eventID: UUID, bodyCount: UInt32) {
        self.kind = kind
        self.codec = codec
        self.dictionaryID = dictionaryID
        self.keyID = keyID
        self.stream = stream
        self.streamNumber = streamNumber
        self.recordedAtMilliseconds = recordedAtMilliseconds
        self.eventID = eventID
        self.bodyCount = bodyCount
    }
}

/// Offsets of the parts of a record: `header 60 | leaf hash 32 | …`. After the leaf hash a record sealed on its own
/// holds its ciphertext (and 16-byte tag); the first record of a block holds the block's record count u16 and then
/// the block's ciphertext; a later record of a block holds its distance u16 back to the first (docs/FORMAT.md §5.8).
/// The nonce is not stored in the record; see ``NonceBase``.
enum RecordLayout {
    static let leafOffset = RecordHeader.byteCount
    static let ciphertextOffset = leafOffset + SHA256.digestBytes
    /// Every record holds its header and its leaf hash.
    static let leafEnd = ciphertextOffset
    static let minimumCount = ciphertextOffset + AEAD.tagBytes
    /// Where a block's record count (in its first record) or a record's distance back to its block's first record is.
    static let blockFieldOffset = leafEnd
    static let blockCiphertextOffset = blockFieldOffset + 2
    /// The size of every record of a block after the first.
    static let blockMemberCount = blockCiphertextOffset

    /// Where the ciphertext (and tag) is in a record of `kind`: nil for a later record of a block, which has none, or a
    /// record too short to hold one.
    static func sealedRange(of record: UnsafeRawBufferPointer, kind: RecordHeader.Kind) -> Range<Int>? {
        let start: Int
        switch kind {
        case .single: start = ciphertextOffset
        case .blockHead: start = blockCiphertextOffset
        case .blockMember: return nil
        }
        return record.count >= start + AEAD.tagBytes ? start..<record.count : nil
    }

    /// The bytes of ciphertext a record stores (0 for a later record of a block), for the store's totals.
    static func ciphertextCount(of record: UnsafeRawBufferPointer) -> Int {
        guard let kind = record.first.flatMap(RecordHeader.Kind.init(rawValue:)),
              let range = sealedRange(of: record, kind: kind) else { return 0 }
        return range.count - AEAD.tagBytes
    }

    /// The associated data that binds a record to its place: `store id 16 | position u64 | header 60`.
    static func withAdditionalData<R>(storeID: UnsafeRawBufferPointer, position: UInt64,
                                      header: UnsafeRawBufferPointer,
                                      _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withAdditionalData(storeID: storeID, position: position,
                               headers: UnsafeRawBufferPointer(rebasing: header[0..<RecordHeader.byteCount]), body)
    }

    /// The associated data of a block (or a single record): `store id 16 | first position u64 | each record's header`.
    static func withAdditionalData<R>(storeID: UnsafeRawBufferPointer, position: UInt64, headers: UnsafeRawBufferPointer,
                                      _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeTemporaryAllocation(byteCount: 24 + headers.count, alignment: 8) { aad in
            UnsafeMutableRawBufferPointer(rebasing: aad[0..<16]).copyMemory(from: storeID)
            aad.storeBigEndian(position, at: 16)
            UnsafeMutableRawBufferPointer(rebasing: aad[24...]).copyMemory(from: headers)
            return try body(UnsafeRawBufferPointer(aad))
        }
    }

    /// `SHA-256(nonce | ciphertext and tag)`: what the leaf hash of every record sealed with that ciphertext digests.
    static func sealedDigest(nonce: UnsafeRawBufferPointer, sealed: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) {
        var digest = SHA256()
        digest.update(nonce)
        digest.update(sealed)
        digest.finish(into: out)
    }

    /// The RFC 6962 leaf hash `SHA-256(0x00 | position u64 | header 60 | sealed digest)`.
    static func leafHash(position: UInt64, header: UnsafeRawBufferPointer, sealedDigest: UnsafeRawBufferPointer,
                         into out: UnsafeMutableRawBufferPointer) {
        var leaf = SHA256()
        leaf.update(byte: 0)
        withUnsafeBytes(of: position.bigEndian) { leaf.update($0) }
        leaf.update(UnsafeRawBufferPointer(rebasing: header[0..<RecordHeader.byteCount]))
        leaf.update(sealedDigest)
        leaf.finish(into: out)
    }

    /// The leaf hash of a record sealed on its own:
    /// `SHA-256(0x00 | position u64 | header 60 | SHA-256(nonce | ciphertext and tag))`.
    /// Computable without any key, from the stored bytes and the clear nonce base alone.
    static func leafHash(position: UInt64, record: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
                         into out: UnsafeMutableRawBufferPointer) {
        withUnsafeTemporaryAllocation(byteCount: SHA256.digestBytes, alignment: 8) { digest in
            sealedDigest(nonce: nonce, sealed: UnsafeRawBufferPointer(rebasing: record[ciphertextOffset...]), into: digest)
            leafHash(position: position, header: record, sealedDigest: UnsafeRawBufferPointer(digest), into: out)
        }
    }
}
