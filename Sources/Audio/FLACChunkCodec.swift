internal import CSndFile

/// Lossless coding of a chunk of 16-bit PCM as a complete FLAC stream (through libsndfile), so
/// any FLAC decoder reads a stored chunk. Speech comes out at about 0.6 of its raw size.
public enum FLACChunkCodec {
    /// A FLAC stream holding `samples` (interleaved, `format.channels` per frame).
    public static func encode(_ samples: [Int16], format: AudioFormat) throws(AudioError) -> [UInt8] {
        precondition(samples.count % format.channels == 0, "samples are whole frames")
        return try AudioFile.encoded(samples, format: format, as: .flac)
    }

    /// The samples and format of a FLAC stream made by ``encode(_:format:)`` (or any 16-bit FLAC).
    public static func decode(_ bytes: [UInt8]) throws(AudioError) -> (samples: [Int16], format: AudioFormat) {
        let file = MemoryFile(bytes: bytes)
        var info = SF_INFO()
        guard let sound = file.open(Int32(SFM_READ), &info) else {
            throw AudioError(.malformed, "a stored audio chunk is not valid FLAC: \(SoundFile.lastError(nil))")
        }
        let samples = try sound.readAllSamples(source: "a stored audio chunk")
        return (samples, AudioFormat(sampleRate: Int(info.samplerate), channels: Int(info.channels)))
    }

    /// The format and length a FLAC stream declares in its STREAMINFO block, read without decoding;
    /// nil when the bytes do not start with `fLaC` and a STREAMINFO block.
    public static func streamInfo(_ bytes: [UInt8]) -> (format: AudioFormat, frames: UInt64)? {
        // "fLaC", then a block header (type 0 = STREAMINFO in the low 7 bits, length 34), then the
        // block: 2+2 bytes block sizes, 3+3 bytes frame sizes, then 20 bits rate, 3 bits channels − 1,
        // 5 bits bits-per-sample − 1, 36 bits total samples (RFC 9639, section 8.2).
        guard bytes.count >= 42, bytes.starts(with: [0x66, 0x4C, 0x61, 0x43]), bytes[4] & 0x7F == 0,
              bytes[5] == 0, bytes[6] == 0, bytes[7] == 34 else { return nil }
        let packed = bytes[18..<26].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let rate = Int(packed >> 44)
        let channels = Int((packed >> 41) & 0x7) + 1
        let frames = packed & 0xF_FFFF_FFFF
        guard rate > 0 else { return nil }
        return (AudioFormat(sampleRate: rate, channels: channels), frames)
    }
}
