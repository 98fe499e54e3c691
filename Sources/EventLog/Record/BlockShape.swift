import Foundation

/// A block's records parsed and checked before anything is decrypted (docs/FORMAT.md §5.8): each header, that every
/// record after the first belongs to the block (its distance back, stream, data key, codec and dictionary those of the
/// first), and the digest of the block's ciphertext that every record's leaf hash covers. A class: each record's
/// result captures it, and a struct of five arrays would be copied (five retains) each time.
final class BlockShape {
    /// What is wrong with the block as a whole, said of each of its records by ``error(_:at:)``.
    struct Failure: Error {
        let what: String
        init(_ what: String) { self.what = what }
    }

    let unit: SealedUnit
    let headers: [RecordHeader]
    /// Where the block's ciphertext and tag are in its first record.
    let sealedRange: Range<Int>
    private let nonceBase: NonceBase
    private let sealedDigest: [UInt8]
    /// Where each record's body starts in the block's plaintext, and where the last ends.
    private let bodyStarts: [Int]

    var bodyCount: Int { bodyStarts[bodyStarts.count - 1] }

    init(_ unit: SealedUnit, nonceBase: NonceBase?) throws {
        if let problem = unit.problem { throw EventLogError.integrity(unit.position, problem) }
        let count = unit.records.count
        var headers: [RecordHeader] = []
        headers.reserveCapacity(count)
        var bodyStarts = [0]
        bodyStarts.reserveCapacity(count + 1)
        for (offset, record) in unit.records.enumerated() {
            let position = unit.position + UInt64(offset)
            guard let header = RecordHeader(parsing: record) else {
                throw EventLogError.integrity(position, "is malformed (\(record.count) bytes, header unreadable)")
            }
            if offset == 0 {
                guard header.kind == .blockHead, record.count >= RecordLayout.blockCiphertextOffset + AEAD.tagBytes,
                      Int(record.loadBigEndian(at: RecordLayout.blockFieldOffset) as UInt16) == count else {
                    throw EventLogError.integrity(position, "is malformed (not the first record of a block of \(count))")
                }
            } else {
                let head = headers[0]
                guard header.kind == .blockMember, record.count == RecordLayout.blockMemberCount,
                      Int(record.loadBigEndian(at: RecordLayout.blockFieldOffset) as UInt16) == offset else {
                    throw EventLogError.integrity(position, "is malformed (not record \(offset) of the block at position \(unit.position))")
                }
                guard header.stream == head.stream, header.keyID == head.keyID, header.codec == head.codec,
                      header.dictionaryID == head.dictionaryID else {
                    throw EventLogError.integrity(position, "names another stream, data key, codec or dictionary than the first record of its block, at position \(unit.position)")
                }
            }
            guard Int(header.bodyCount) <= RecordBody.maximumCount else {
                throw EventLogError.integrity(position, "declares a body of \(header.bodyCount) bytes, more than an event can hold")
            }
            headers.append(header)
            bodyStarts.append(bodyStarts[offset] + Int(header.bodyCount))
        }
        guard let nonceBase else { throw EventLogError.integrity(unit.position, "has no nonce base in nonce-bases") }
        let sealedRange = RecordLayout.blockCiphertextOffset..<unit.records[0].count
        let sealed = UnsafeRawBufferPointer(rebasing: unit.records[0][sealedRange])
        self.unit = unit
        self.headers = headers
        self.sealedRange = sealedRange
        self.nonceBase = nonceBase
        self.bodyStarts = bodyStarts
        sealedDigest = [UInt8](unsafeUninitializedCapacity: SHA256.digestBytes) { digest, initialised in
            nonceBase.withNonce(for: unit.position) { nonce in
                RecordLayout.sealedDigest(nonce: nonce, sealed: sealed, into: UnsafeMutableRawBufferPointer(digest))
            }
            initialised = SHA256.digestBytes
        }
    }

    func position(_ offset: Int) -> UInt64 { unit.position + UInt64(offset) }

    func bodyRange(_ offset: Int) -> Range<Int> { bodyStarts[offset]..<bodyStarts[offset + 1] }

    /// The error of record `offset` when the block as a whole fails.
    func error(_ failure: Failure, at offset: Int) -> EventLogError {
        .integrity(position(offset), "is in the block of \(unit.records.count) records at position \(unit.position), which \(failure.what)")
    }

    /// Throws unless record `offset`'s stored leaf hash is that of its position, header and the block's ciphertext.
    func checkLeaf(_ offset: Int) throws {
        let record = unit.records[offset]
        let matches = withUnsafeTemporaryAllocation(byteCount: SHA256.digestBytes, alignment: 8) { computed in
            sealedDigest.withUnsafeBytes { digest in
                RecordLayout.leafHash(position: position(offset), header: record, sealedDigest: digest, into: computed)
            }
            return memcmp(computed.baseAddress!, record.baseAddress! + RecordLayout.leafOffset, SHA256.digestBytes) == 0
        }
        guard matches else { throw EventLogError.integrity(position(offset), "does not match its leaf hash (damaged or moved)") }
    }

    func withNonce<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try nonceBase.withNonce(for: unit.position, body)
    }

    /// Every record's header, one after another: what the block's associated data binds.
    func withHeaders<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeTemporaryAllocation(byteCount: unit.records.count * RecordHeader.byteCount, alignment: 8) { headers in
            for (offset, record) in unit.records.enumerated() {
                UnsafeMutableRawBufferPointer(rebasing: headers[(offset * RecordHeader.byteCount)...])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: record[0..<RecordHeader.byteCount]))
            }
            return try body(UnsafeRawBufferPointer(headers))
        }
    }
}
