/// Cutting a recording into chunks of about 100 ms.
public enum Chunking {
    /// The ranges of sample frames, `milliseconds` each, the last one shorter when the audio does not
    /// divide evenly.
    public static func frameRanges(frames: Int, format: AudioFormat, milliseconds: Int = 100) -> [Range<Int>] {
        let size = max(1, format.frames(milliseconds: milliseconds))
        return stride(from: 0, to: frames, by: size).map { $0..<min($0 + size, frames) }
    }

    /// Little-endian int16 bytes of the frames in `range`.
    public static func pcmBytes(_ samples: [Int16], frames range: Range<Int>, channels: Int) -> [UInt8] {
        let interleaved = samples[range.lowerBound * channels..<range.upperBound * channels]
        #if _endian(little)
        return interleaved.withUnsafeBytes { [UInt8]($0) }
        #else
        var bytes = [UInt8](repeating: 0, count: interleaved.count * 2)
        bytes.withUnsafeMutableBytes { raw in
            for (offset, sample) in interleaved.enumerated() {
                raw.storeBytes(of: sample.littleEndian, toByteOffset: 2 * offset, as: Int16.self)
            }
        }
        return bytes
        #endif
    }

    /// Samples from little-endian int16 bytes.
    public static func samples(fromPCM bytes: [UInt8]) -> [Int16] {
        let count = bytes.count / 2
        return [Int16](unsafeUninitializedCapacity: count) { samples, initialized in
            // One copy, not a call per sample: the tests run this compiled for debugging, hours of audio.
            bytes.withUnsafeBytes { UnsafeMutableRawBufferPointer(samples).copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[..<(count * 2)])) }
            #if !_endian(little)
            for index in 0..<count { samples[index] = Int16(littleEndian: samples[index]) }
            #endif
            initialized = count
        }
    }
}
