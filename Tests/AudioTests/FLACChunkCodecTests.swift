@testable import Audio
import Foundation
import Testing

@Suite struct FLACChunkCodecTests {
    @Test(arguments: [1, 2, 1599, 1600, 4097, 16_000])
    func aChunkOfAnyLengthDecodesToTheSameSamples(frames: Int) throws {
        // A tone with a little hash noise, which FLAC's predictor cannot remove.
        let samples = (0..<frames).map { (index: Int) -> Int16 in
            let tone = Int(8000 * sin(Double(index) / 7))
            let noise: Int = ((index &* 2_654_435_761) >> 7) % 200 - 100
            return Int16(clamping: tone + noise)
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
