internal import CZstd

/// A zstd dictionary digested once for compression and once for decompression.
///
/// Digested dictionaries are read-only after creation and may be shared by any number of threads.
final class CompressionDictionary: @unchecked Sendable {
    // @unchecked: ZSTD_CDict and ZSTD_DDict are immutable once created; zstd documents them as
    // safe to use from several contexts at once.
    let id: UInt16
    let bytes: [UInt8]
    let compressionDictionary: OpaquePointer
    let decompressionDictionary: OpaquePointer

    init(id: UInt16, bytes: [UInt8], level: Int32) throws {
        guard !bytes.isEmpty,
              let cdict = bytes.withUnsafeBytes({ ZSTD_createCDict($0.baseAddress, $0.count, level) })
        else { throw EventLogError(.invalidArgument, "compression dictionary \(id) is empty or not usable") }
        guard let ddict = bytes.withUnsafeBytes({ ZSTD_createDDict($0.baseAddress, $0.count) }) else {
            ZSTD_freeCDict(cdict)
            throw EventLogError(.invalidArgument, "compression dictionary \(id) is not usable")
        }
        self.id = id
        self.bytes = bytes
        compressionDictionary = cdict
        decompressionDictionary = ddict
    }

    deinit {
        ZSTD_freeCDict(compressionDictionary)
        ZSTD_freeDDict(decompressionDictionary)
    }

    /// Trains a dictionary of at most `capacity` bytes from sample payloads (`ZDICT_trainFromBuffer`).
    static func train(samples: [[UInt8]], capacity: Int) throws -> [UInt8] {
        let joined = samples.flatMap { $0 }
        let sizes = samples.map { $0.count }
        var dictionary = [UInt8](repeating: 0, count: capacity)
        let size = dictionary.withUnsafeMutableBytes { out in
            joined.withUnsafeBytes { joined in
                ZDICT_trainFromBuffer(out.baseAddress, out.count, joined.baseAddress, sizes, UInt32(sizes.count))
            }
        }
        if ZDICT_isError(size) != 0 {
            throw EventLogError(.invalidArgument,
                                "cannot train a dictionary from \(samples.count) samples: \(String(cString: ZDICT_getErrorName(size)))")
        }
        return Array(dictionary[..<size])
    }
}
