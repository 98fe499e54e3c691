@testable import EventLog
import Foundation

/// Opens fuzzed records with a real store's opener. An input whose first byte is even is a record as
/// stored; with an odd first byte, the rest is a header followed by the plaintext (a compressed body),
/// which is sealed with the key before it is opened: that way the fuzzer reaches decompression and
/// body parsing, behind an authentication it could never forge.
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
        let record = mode & 1 == 0 ? Array(input.dropFirst()) : sealed(Array(input.dropFirst()))
        _ = record.withUnsafeBytes { bytes in
            try? log.opener.open(bytes, position: position, nonceBase: nonceBase, decompressor: decompressor) { _ in key }
        }
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
