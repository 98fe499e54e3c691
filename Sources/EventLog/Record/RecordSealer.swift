import Foundation

/// One event ready to seal: everything the record binds to.
struct SealJob {
    var event: ProposedEvent
    var stream: UUID
    var streamNumber: UInt64
    var position: UInt64
    var keyID: UInt32
    var key: SecureBytes
    var recordedAtMilliseconds: Int64
}

/// The plaintext of a record before compression: `type length u8 | type UTF-8 | data`.
enum RecordBody {
    static func encode(_ event: ProposedEvent, into body: inout [UInt8]) {
        body.removeAll(keepingCapacity: true)
        body.append(UInt8(event.type.utf8.count))
        body.append(contentsOf: event.type.utf8)
        body.append(contentsOf: event.data)
    }

    static func encode(_ event: ProposedEvent) -> [UInt8] {
        var body: [UInt8] = []
        encode(event, into: &body)
        return body
    }
}

/// Compresses, encrypts and hashes events into records. Each sealing thread owns one.
final class RecordSealer {
    private let compressor = Compressor()
    private var body: [UInt8] = []

    /// Seals `job` with its nonce from `nonceBase`, producing the bytes stored under its position.
    func seal(_ job: SealJob, storeID: [UInt8], dictionary: CompressionDictionary?, nonceBase: NonceBase) -> [UInt8] {
        RecordBody.encode(job.event, into: &body)
        return body.withUnsafeBytes { body in
            let (codec, compressedCount) = compressor.compress(body, dictionary: dictionary)
            let header = RecordHeader(
                codec: codec, dictionaryID: codec == .zstdDictionary ? dictionary!.id : 0, keyID: job.keyID,
                stream: job.stream, streamNumber: job.streamNumber,
                recordedAtMilliseconds: job.recordedAtMilliseconds, eventID: job.event.id,
                bodyCount: UInt32(body.count))
            let total = RecordLayout.ciphertextOffset + compressedCount + AEAD.tagBytes
            return [UInt8](unsafeUninitializedCapacity: total) { buffer, initialised in
                let record = UnsafeMutableRawBufferPointer(buffer)
                header.write(into: record)
                let sealed = UnsafeMutableRawBufferPointer(rebasing: record[RecordLayout.ciphertextOffset...])
                let headerBytes = UnsafeRawBufferPointer(rebasing: record[0..<RecordHeader.byteCount])
                nonceBase.withNonce(for: job.position) { nonce in
                    storeID.withUnsafeBytes { storeID in
                        RecordLayout.withAdditionalData(storeID: storeID, position: job.position, header: headerBytes) { aad in
                            compressor.withCompressed(codec == .stored ? body : nil, count: compressedCount) { plaintext in
                                AEAD.seal(plaintext, additionalData: aad, nonce: nonce, key: job.key, into: sealed)
                            }
                        }
                    }
                    RecordLayout.leafHash(
                        position: job.position, record: UnsafeRawBufferPointer(record), nonce: nonce,
                        into: UnsafeMutableRawBufferPointer(rebasing: record[RecordLayout.leafOffset..<RecordLayout.ciphertextOffset]))
                }
                initialised = total
            }
        }
    }
}
