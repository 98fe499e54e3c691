import Foundation
internal import CZstd

/// How a record's payload was compressed; the byte stored in the record header.
enum Codec: UInt8 {
    case stored = 0
    case zstd = 1
    case zstdDictionary = 2
}

/// One zstd compression context. Not thread-safe: each sealing thread owns one.
final class Compressor {
    static let level: Int32 = 1
    /// Payloads up to this size use the dictionary; larger ones compress well enough alone.
    static let dictionaryThreshold = 1024

    private let context: OpaquePointer
    private(set) var scratch: [UInt8] = []

    init() {
        context = ZSTD_createCCtx()
        ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, Self.level)
        ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 0)
        // The dictionary id is in the record header; the frame need not repeat it, nor start with
        // zstd's 4-byte magic number (the codec byte says what it is): ZSTD_c_format = magicless.
        ZSTD_CCtx_setParameter(context, ZSTD_c_dictIDFlag, 0)
        ZSTD_CCtx_setParameter(context, ZSTD_c_experimentalParam2, 1)
    }

    deinit {
        ZSTD_freeCCtx(context)
    }

    /// Compresses `input` into `scratch`; returns the codec used and the compressed byte count.
    /// Returns `.stored` when compression would not make the payload smaller.
    func compress(_ input: UnsafeRawBufferPointer, dictionary: CompressionDictionary?) -> (codec: Codec, count: Int) {
        let useDictionary = dictionary != nil && input.count <= Self.dictionaryThreshold
        let bound = ZSTD_compressBound(input.count)
        if scratch.count < bound { scratch = [UInt8](repeating: 0, count: max(bound, 4096)) }
        ZSTD_CCtx_refCDict(context, useDictionary ? dictionary!.compressionDictionary : nil)
        let written = scratch.withUnsafeMutableBytes { out in
            ZSTD_compress2(context, out.baseAddress, out.count, input.baseAddress, input.count)
        }
        guard ZSTD_isError(written) == 0, written < input.count else { return (.stored, input.count) }
        return (useDictionary ? .zstdDictionary : .zstd, written)
    }

    /// Lends the bytes to encrypt: `stored` itself when given (the payload was not compressed),
    /// else the first `count` bytes of the last compression.
    func withCompressed<R>(_ stored: UnsafeRawBufferPointer?, count: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        if let stored { return body(stored) }
        return scratch.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }
}

/// One zstd decompression context, and the event type names its thread has met. Not thread-safe:
/// borrow one from a ``DecompressorPool``.
final class Decompressor {
    private let context: OpaquePointer
    private var typeNames: [(bytes: [UInt8], name: String)] = []

    init() {
        context = ZSTD_createDCtx()
        ZSTD_DCtx_setParameter(context, ZSTD_d_experimentalParam1, 1)  // ZSTD_d_format = magicless
    }

    deinit {
        ZSTD_freeDCtx(context)
    }

    /// The event type spelled by `bytes` (UTF-8), or nil if they are not UTF-8. A log holds a few
    /// dozen types: each is decoded once per context, then found by comparing bytes.
    func typeName(_ bytes: UnsafeRawBufferPointer) -> String? {
        for known in typeNames where known.bytes.count == bytes.count {
            if known.bytes.withUnsafeBytes({ memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) }) == 0 { return known.name }
        }
        guard let name = String(validating: bytes, as: UTF8.self) else { return nil }
        if typeNames.count < 64 { typeNames.append((Array(bytes), name)) }
        return name
    }

    /// Decompresses a whole frame into `output`, which must be exactly the original size.
    /// Returns false on damaged input or a size mismatch.
    func decompress(_ input: UnsafeRawBufferPointer, dictionary: CompressionDictionary?,
                    into output: UnsafeMutableRawBufferPointer) -> Bool {
        let result: Int
        if let dictionary {
            result = ZSTD_decompress_usingDDict(context, output.baseAddress, output.count,
                                                input.baseAddress, input.count, dictionary.decompressionDictionary)
        } else {
            result = ZSTD_decompressDCtx(context, output.baseAddress, output.count, input.baseAddress, input.count)
        }
        return ZSTD_isError(result) == 0 && result == output.count
    }
}
