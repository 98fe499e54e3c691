import Foundation

/// The clear, fixed-size header at the start of every record in the `events` database.
///
/// Layout (all integers big-endian), 60 bytes:
/// `format u8 | codec u8 | dictionary id u16 | key id u32 | stream id 16 | stream number u64 |
///  recorded-at ms i64 | event id 16 | payload length u32`
struct RecordHeader: Equatable, Sendable {
    static let byteCount = 60
    static let formatVersion: UInt8 = 1

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
        out[0] = Self.formatVersion
        out[1] = codec.rawValue
        out.storeBigEndian(dictionaryID, at: 2)
        out.storeBigEndian(keyID, at: 4)
        withUnsafeBytes(of: stream.uuid) { UnsafeMutableRawBufferPointer(rebasing: out[8..<24]).copyMemory(from: $0) }
        out.storeBigEndian(streamNumber, at: 24)
        out.storeBigEndian(recordedAtMilliseconds, at: 32)
        withUnsafeBytes(of: eventID.uuid) { UnsafeMutableRawBufferPointer(rebasing: out[40..<56]).copyMemory(from: $0) }
        out.storeBigEndian(bodyCount, at: 56)
    }

    /// Parses a header; nil when the bytes cannot be a version-1 header.
    init?(parsing bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= Self.byteCount, bytes[0] == Self.formatVersion,
              let codec = Codec(rawValue: bytes[1]) else { return nil }
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

    init(codec: Codec, dictionaryID: UInt16, keyID: UInt32, stream: UUID, streamNumber: UInt64,
         recordedAtMilliseconds: Int64, eventID: UUID, bodyCount: UInt32) {
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

/// Offsets of the parts of a record: `header 60 | leaf hash 32 | ciphertext (+16 tag)`.
/// The nonce is not stored in the record; see ``NonceBase``.
enum RecordLayout {
    static let leafOffset = RecordHeader.byteCount
    static let ciphertextOffset = leafOffset + SHA256.digestBytes
    static let minimumCount = ciphertextOffset + AEAD.tagBytes
    static let additionalDataCount = 16 + 8 + RecordHeader.byteCount

    /// The associated data that binds a record to its place: `store id 16 | position u64 | header 60`.
    static func withAdditionalData<R>(storeID: UnsafeRawBufferPointer, position: UInt64,
                                      header: UnsafeRawBufferPointer,
                                      _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeTemporaryAllocation(byteCount: additionalDataCount, alignment: 8) { aad in
            UnsafeMutableRawBufferPointer(rebasing: aad[0..<16]).copyMemory(from: storeID)
            aad.storeBigEndian(position, at: 16)
            UnsafeMutableRawBufferPointer(rebasing: aad[24...]).copyMemory(from: UnsafeRawBufferPointer(rebasing: header[0..<RecordHeader.byteCount]))
            return try body(UnsafeRawBufferPointer(aad))
        }
    }

    /// The RFC 6962 leaf hash of a record:
    /// `SHA-256(0x00 | position u64 | header 60 | SHA-256(nonce | ciphertext and tag))`.
    /// Computable without any key, from the stored bytes and the clear nonce base alone.
    static func leafHash(position: UInt64, record: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
                         into out: UnsafeMutableRawBufferPointer) {
        withUnsafeTemporaryAllocation(byteCount: SHA256.digestBytes, alignment: 8) { digest in
            var sealed = SHA256()
            sealed.update(nonce)
            sealed.update(UnsafeRawBufferPointer(rebasing: record[ciphertextOffset...]))
            sealed.finish(into: digest)
            var leaf = SHA256()
            leaf.update(byte: 0)
            withUnsafeBytes(of: position.bigEndian) { leaf.update($0) }
            leaf.update(UnsafeRawBufferPointer(rebasing: record[0..<RecordHeader.byteCount]))
            leaf.update(UnsafeRawBufferPointer(digest))
            leaf.finish(into: out)
        }
    }
}
