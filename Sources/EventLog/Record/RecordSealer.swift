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
    /// The largest body an event makes: a type of up to 255 bytes after its length, and data.
    static let maximumCount = 256 + ProposedEvent.maximumDataCount

    static func encode(_ event: ProposedEvent, into body: inout [UInt8]) {
        body.removeAll(keepingCapacity: true)
        append(event, to: &body)
    }

    static func append(_ event: ProposedEvent, to body: inout [UInt8]) {
        body.append(UInt8(event.type.utf8.count))
        body.append(contentsOf: event.type.utf8)
        body.append(contentsOf: event.data)
    }

    /// The length of an event's body.
    static func count(of event: ProposedEvent) -> Int { 1 + event.type.utf8.count + event.data.count }

    static func encode(_ event: ProposedEvent) -> [UInt8] {
        var body: [UInt8] = []
        encode(event, into: &body)
        return body
    }
}

/// Which consecutive jobs are sealed together as one block (docs/FORMAT.md §5.8).
enum RecordBlocks {
    /// The jobs cut into runs of consecutive events of one stream under one data key whose bodies together take at most
    /// `bodyBytes`; an event larger than that, or of another stream than its neighbours, is a run of its own.
    static func ranges(of jobs: [SealJob], bodyBytes: Int) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        var taken = 0
        for index in jobs.indices {
            let count = RecordBody.count(of: jobs[index].event)
            if index > start {
                let previous = jobs[index - 1], job = jobs[index]
                let joins = job.stream == previous.stream && job.keyID == previous.keyID && job.position == previous.position + 1
                    && taken + count <= bodyBytes && index - start < Int(UInt16.max)
                if joins {
                    taken += count
                    continue
                }
                ranges.append(start..<index)
            }
            start = index
            taken = count
        }
        if start < jobs.count { ranges.append(start..<jobs.count) }
        return ranges
    }
}

/// Compresses, encrypts and hashes events into records. Each sealing thread owns one.
final class RecordSealer {
    private let compressor = Compressor()
    private var body: [UInt8] = []

    /// Seals `jobs` (consecutive events of one stream under one data key) as one block, or the one job on its own;
    /// one record for each job, in order.
    func seal(_ jobs: ArraySlice<SealJob>, storeID: [UInt8], dictionary: CompressionDictionary?, nonceBase: NonceBase) -> [[UInt8]] {
        guard jobs.count > 1, let first = jobs.first else {
            return jobs.map { seal($0, storeID: storeID, dictionary: dictionary, nonceBase: nonceBase) }
        }
        body.removeAll(keepingCapacity: true)
        for job in jobs { RecordBody.append(job.event, to: &body) }
        var headers = [UInt8](repeating: 0, count: jobs.count * RecordHeader.byteCount)
        return body.withUnsafeBytes { body in
            let (codec, compressedCount) = compressor.compress(body, dictionary: dictionary)
            headers.withUnsafeMutableBytes { headers in
                for (offset, job) in jobs.enumerated() {
                    RecordHeader(
                        kind: offset == 0 ? .blockHead : .blockMember, codec: codec,
                        dictionaryID: codec == .zstdDictionary ? dictionary!.id : 0, keyID: first.keyID,
                        stream: first.stream, streamNumber: job.streamNumber, recordedAtMilliseconds: job.recordedAtMilliseconds,
                        eventID: job.event.id, bodyCount: UInt32(RecordBody.count(of: job.event))
                    ).write(into: UnsafeMutableRawBufferPointer(rebasing: headers[(offset * RecordHeader.byteCount)...]))
                }
            }
            var records = jobs.indices.map { index in
                [UInt8](repeating: 0, count: index == jobs.startIndex
                            ? RecordLayout.blockCiphertextOffset + compressedCount + AEAD.tagBytes : RecordLayout.blockMemberCount)
            }
            nonceBase.withNonce(for: first.position) { nonce in
                headers.withUnsafeBytes { headers in
                    records[0].withUnsafeMutableBytes { head in
                        let sealed = UnsafeMutableRawBufferPointer(rebasing: head[RecordLayout.blockCiphertextOffset...])
                        storeID.withUnsafeBytes { storeID in
                            RecordLayout.withAdditionalData(storeID: storeID, position: first.position, headers: headers) { aad in
                                compressor.withCompressed(codec == .stored ? body : nil, count: compressedCount) { plaintext in
                                    AEAD.seal(plaintext, additionalData: aad, nonce: nonce, key: first.key, into: sealed)
                                }
                            }
                        }
                    }
                    let digest = [UInt8](unsafeUninitializedCapacity: SHA256.digestBytes) { digest, initialised in
                        records[0].withUnsafeBytes { head in
                            RecordLayout.sealedDigest(nonce: nonce, sealed: UnsafeRawBufferPointer(rebasing: head[RecordLayout.blockCiphertextOffset...]),
                                                      into: UnsafeMutableRawBufferPointer(digest))
                        }
                        initialised = SHA256.digestBytes
                    }
                    for offset in records.indices {
                        let header = UnsafeRawBufferPointer(rebasing: headers[(offset * RecordHeader.byteCount)..<((offset + 1) * RecordHeader.byteCount)])
                        records[offset].withUnsafeMutableBytes { record in
                            UnsafeMutableRawBufferPointer(rebasing: record[0..<RecordHeader.byteCount]).copyMemory(from: header)
                            digest.withUnsafeBytes { digest in
                                RecordLayout.leafHash(position: first.position + UInt64(offset), header: header, sealedDigest: digest,
                                                      into: UnsafeMutableRawBufferPointer(rebasing: record[RecordLayout.leafOffset..<RecordLayout.leafEnd]))
                            }
                            record.storeBigEndian(UInt16(offset == 0 ? jobs.count : offset), at: RecordLayout.blockFieldOffset)
                        }
                    }
                }
            }
            return records
        }
    }

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
