@testable import Audio
import Foundation
import Testing

@Suite struct FLACChunkCodecTests {
    @Test(arguments: [1, 2, 1599, 1600, 4097, 16_000])
    func aChunkOfAnyLengthDecodesToTheSameSamples(frames: Int) throws {
        var generator = SplitMix(seed: UInt64(frames))
        let samples = (0..<frames).map { index in
            Int16(clamping: Int(8000 * sin(Double(index) / 7)) + Int(generator.next() % 200) - 100)
        }
        let encoded = try FLACChunkCodec.encode(samples, format: .sessionDefault)
        #expect(encoded.starts(with: Array("fLaC".utf8)))
        let decoded = try FLACChunkCodec.decode(encoded)
        #expect(decoded.samples == samples)
        #expect(decoded.format == .sessionDefault)
    }

    @Test func stereoAndExtremeSamplesSurvive() throws {
        let samples: [Int16] = [.min, .max, 0, -1, 1, .min, .max, .max, .min, 0]
        let format = AudioFormat(sampleRate: 44_100, channels: 2)
        let decoded = try FLACChunkCodec.decode(try FLACChunkCodec.encode(samples, format: format))
        #expect(decoded.samples == samples)
        #expect(decoded.format == format)
    }

    @Test func theStreamInfoGivesFormatAndLengthWithoutDecoding() throws {
        let format = AudioFormat(sampleRate: 44_100, channels: 2)
        let encoded = try FLACChunkCodec.encode((0..<(2 * 4097)).map { Int16(truncatingIfNeeded: $0 * 31) }, format: format)
        let info = try #require(FLACChunkCodec.streamInfo(encoded))
        #expect(info.format == format)
        #expect(info.frames == 4097)
        #expect(FLACChunkCodec.streamInfo(Array("RIFF and other things that are long enough to look".utf8)) == nil)
        #expect(FLACChunkCodec.streamInfo(Array(encoded.prefix(20))) == nil)
    }

    @Test func bytesThatAreNotFLACAreRefusedWithAMessage() {
        #expect(throws: AudioError.self) { try FLACChunkCodec.decode(Array("not audio at all".utf8)) }
        #expect(throws: AudioError.self) { try FLACChunkCodec.decode([]) }
    }
}

/// A small deterministic generator for test signals.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
