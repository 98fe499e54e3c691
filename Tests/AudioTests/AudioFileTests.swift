@testable import Audio
import Foundation
import TestSupport
import Testing

@Suite struct AudioFileTests {
    private func temporaryPath(_ ext: String) -> String {
        Scratch.url("audio-\(UUID().uuidString).\(ext)").path
    }

    @Test(arguments: RepositoryFixtures.speechFixtures)
    func everyFixtureRoundTripsBitIdenticalThroughWAVAndFLAC(_ name: String) throws {
        let audio = try AudioFile.read(RepositoryFixtures.audioPath(name))
        #expect(audio.format == .sessionDefault)
        #expect(audio.conversion == nil)
        #expect(audio.frames > 16_000)
        for ext in ["wav", "flac"] {
            let path = temporaryPath(ext)
            defer { try? FileManager.default.removeItem(atPath: path) }
            try AudioFile.write(audio.samples, format: audio.format, to: path)
            #expect(try AudioFile.read(path).samples == audio.samples, "\(name) through \(ext)")
        }
    }

    @Test func oggVorbisIsReadAndItsDecodedSamplesRoundTrip() throws {
        let ogg = try AudioFile.read(RepositoryFixtures.audioPath("short-dictation", "ogg"))
        let flac = try AudioFile.read(RepositoryFixtures.audioPath("short-dictation"))
        #expect(ogg.format == .sessionDefault)
        #expect(abs(ogg.frames - flac.frames) < 2048)  // Vorbis is lossy, its length padded to blocks
        let path = temporaryPath("flac")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try AudioFile.write(ogg.samples, format: ogg.format, to: path)
        #expect(try AudioFile.read(path).samples == ogg.samples)
    }

    @Test func otherRatesAndChannelsAreConvertedAndSaySo() throws {
        // One second of a 1 kHz tone, 44.1 kHz stereo, the right channel silent.
        let source = AudioFormat(sampleRate: 44_100, channels: 2)
        var samples: [Int16] = []
        for frame in 0..<44_100 {
            samples.append(Int16(16_000 * sin(2 * Double.pi * 1000 * Double(frame) / 44_100)))
            samples.append(0)
        }
        let path = temporaryPath("wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try AudioFile.write(samples, format: source, to: path)
        let converted = try AudioFile.read(path)
        #expect(converted.format == .sessionDefault)
        #expect(converted.sourceFormat == source)
        #expect(converted.conversion == "converted from 44100 Hz, 2 channels to 16000 Hz, mono, 16-bit")
        #expect(converted.frames == 16_000)
        // Still a 1 kHz tone (2,000 sign changes a second), at half amplitude from the mix-down.
        let middle = converted.samples[1000..<15_000]
        let crossings = zip(middle, middle.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        #expect(abs(crossings - 1750) <= 4)
        #expect((7500...8500).contains(Int(middle.max()!)))
    }

    @Test func aCorruptOrTruncatedFileIsRefusedNamingTheFile() throws {
        let garbage = temporaryPath("wav")
        defer { try? FileManager.default.removeItem(atPath: garbage) }
        try Data("RIFF????WAVEnot really audio".utf8).write(to: URL(fileURLWithPath: garbage))
        let error = #expect(throws: AudioError.self) { try AudioFile.read(garbage) }
        #expect(error?.message.contains(garbage) == true)

        let whole = try Data(contentsOf: URL(fileURLWithPath: RepositoryFixtures.audioPath("short-dictation")))
        let truncated = temporaryPath("flac")
        defer { try? FileManager.default.removeItem(atPath: truncated) }
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: truncated))
        let truncation = #expect(throws: AudioError.self) { try AudioFile.read(truncated) }
        #expect(truncation?.message.contains(truncated) == true)

        #expect(throws: AudioError.self) { try AudioFile.read(temporaryPath("wav")) }  // missing
    }

    @Test func writingNeedsAKnownExtension() {
        #expect(throws: AudioError.self) { try AudioFile.write([0, 1], format: .sessionDefault, to: temporaryPath("mp3")) }
    }

    @Test(arguments: [0, 1, 1599, 1600, 1601, 16_000, 16_001])
    func chunksCoverEveryFrameOnceInOrder(frames: Int) {
        let ranges = Chunking.frameRanges(frames: frames, format: .sessionDefault)
        #expect(ranges.reduce(0) { $0 + $1.count } == frames)
        #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        #expect(ranges.dropLast().allSatisfy { $0.count == 1600 })
        #expect(ranges.last.map { (1...1600).contains($0.count) } ?? (frames == 0))
    }

    @Test func pcmBytesAreLittleEndianAndReadBack() {
        let samples: [Int16] = [1, -2, .max, .min, 256, 0]
        let bytes = Chunking.pcmBytes(samples, frames: 1..<3, channels: 2)
        #expect(bytes == [0xFF, 0x7F, 0x00, 0x80, 0x00, 0x01, 0x00, 0x00])
        #expect(Chunking.samples(fromPCM: bytes) == [.max, .min, 256, 0])
    }

    /// Found by fuzzing (tools/fuzz/run): a 44-byte FLAC header declaring 1,953,038,463 frames of 8
    /// channels made the reader reserve 62 GB up front and abort.
    @Test func aHeaderDeclaringBillionsOfFramesIsRefusedAsTruncatedNotAllocated() throws {
        let path = RepositoryFixtures.root.appendingPathComponent("fuzz/audio-file/flac-declaring-2-billion-frames-of-8-channels").path
        let error = #expect(throws: AudioError.self) { _ = try AudioFile.read(path) }
        #expect(error?.message.contains("truncated") == true || error?.message.contains("cannot be read") == true, "\(String(describing: error))")
    }
}
