@testable import EventLog
import Foundation

/// Opens fuzzed records with a real store's opener. An input whose first byte is 0 mod 4 is a record as
/// stored; 2 mod 4, records as stored (each a u16 length and its bytes) opened together as one block; with an odd
/// first byte, the rest is a header followed by the plaintext (a compressed body), which is sealed with the key
/// before it is opened: that way the fuzzer reaches decompression and body parsing, behind an authentication it
/// could never forge.
final class RecordFuzzing: @unchecked Sendable {
    // @unchecked: libFuzzer calls the target from one thread.
    static let shared = RecordFuzzing()

    private let log: EventLog
    private let key = SecureBytes.random(count: 32)
    private let nonceBase = NonceBase.random()
    private let decompressor = Decompressor()
    private let position: UInt64 = 7

    private init() {
        let directory = FuzzTarget.scratch.appendingPathComponent("store").path
        let keyFile = FuzzTarget.scratch.appendingPathComponent("key").path
        do {
            try MasterKeyFile.create(at: keyFile)
            log = try EventLog.create(at: directory, key: .keyFile(keyFile))
        } catch {
            fatalError("cannot create the fuzzing store: \(error)")
        }
    }

    func run(_ input: [UInt8]) {
        guard let mode = input.first else { return }
        if mode & 3 == 2 { return openBlock(Array(input.dropFirst())) }
        let record = mode & 1 == 0 ? Array(input.dropFirst()) : sealed(Array(input.dropFirst()))
        _ = record.withUnsafeBytes { bytes in
            try? log.opener.open(bytes, position: position, nonceBase: nonceBase, decompressor: decompressor) { _ in key }
        }
    }

    /// Records cut from `input` (u16 length, bytes; as many as it holds) opened as the block at `position`.
    private func openBlock(_ input: [UInt8]) {
        var records: [[UInt8]] = []
        var rest = input[...]
        while rest.count >= 2, records.count < 64 {
            let count = Int(rest[rest.startIndex]) << 8 | Int(rest[rest.startIndex + 1])
            rest = rest.dropFirst(2)
            records.append(Array(rest.prefix(count)))
            rest = rest.dropFirst(count)
        }
        guard !records.isEmpty else { return }
        func withPointers(_ index: Int, _ pointers: [UnsafeRawBufferPointer]) {
            guard index < records.count else {
                let unit = SealedUnit(position: position, records: pointers)
                var results: [Result<RecordedEvent, any Error>] = []
                log.opener.open(unit, wanted: Array(pointers.indices), nonceBase: nonceBase, decompressor: decompressor,
                                key: { _ in key }, transform: { $0 }, into: &results)
                return
            }
            records[index].withUnsafeBytes { withPointers(index + 1, pointers + [$0]) }
        }
        withPointers(0, [])
    }

    /// `header ‖ plaintext` as a record that authenticates at `position`.
    private func sealed(_ input: [UInt8]) -> [UInt8] {
        guard input.count >= RecordHeader.byteCount else { return input }
        let plaintext = input[RecordHeader.byteCount...]
        var record = [UInt8](repeating: 0, count: RecordLayout.ciphertextOffset + plaintext.count + AEAD.tagBytes)
        record.replaceSubrange(0..<RecordHeader.byteCount, with: input[0..<RecordHeader.byteCount])
        record.withUnsafeMutableBytes { record in
            let header = UnsafeRawBufferPointer(rebasing: record[0..<RecordHeader.byteCount])
            nonceBase.withNonce(for: position) { nonce in
                log.opener.storeID.withUnsafeBytes { storeID in
                    RecordLayout.withAdditionalData(storeID: storeID, position: position, header: header) { aad in
                        Array(plaintext).withUnsafeBytes { plaintext in
                            AEAD.seal(plaintext, additionalData: aad, nonce: nonce, key: key,
                                      into: UnsafeMutableRawBufferPointer(rebasing: record[RecordLayout.ciphertextOffset...]))
                        }
                    }
                }
                RecordLayout.leafHash(position: position, record: UnsafeRawBufferPointer(record), nonce: nonce,
                                      into: UnsafeMutableRawBufferPointer(rebasing: record[RecordLayout.leafOffset..<RecordLayout.ciphertextOffset]))
            }
        }
        return record
    }
}
