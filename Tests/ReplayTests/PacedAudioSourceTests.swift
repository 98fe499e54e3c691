import EventLog
import Exports
import Foundation
import Ingest
import Replay
import SessionAudio
import SessionModel
import SessionStoreTesting
import Testing
import TestSupport

/// SessionStoreTesting's paced audio source against the store's own replay of the same session (issue 66).
@Suite struct PacedAudioSourceTests {
    @Test func itsChunksAndWhenEachIsDueAreTheStoresReplayOfTheSameSession() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let recorded = try recorder("short-dictation")
            _ = try await SessionIngest(log: log).ingest(events: try recorded.events())
            let session = try #require(recorded.events().first?.session)
            let wav = try RecordingExport.file(of: session, recording: nil, as: .wav, from: log)
            let source = try PacedAudioSource(wav: Data(wav.bytes), chunkFrames: wav.chunkFrames)
            var replay = try SessionReplay.load(session, from: log, speed: .max)
            var started: Int64?
            var replayed: [(milliseconds: Int64, pcm: [UInt8])] = []
            while let step = try await replay.next() {
                switch step.event.event.payload {
                case .recordingStarted: started = step.virtualMilliseconds
                case .recordingChunk(let chunk): replayed.append((step.virtualMilliseconds - (started ?? 0), try chunk.pcm()))
                default: break
                }
            }
            #expect(replayed.count > 10)
            #expect(source.chunks.count == replayed.count)
            #expect(source.chunks.map { [UInt8]($0.pcm) } == replayed.map(\.pcm), "the same chunk boundaries and samples")
            #expect(source.chunks.map { Int64($0.dueMilliseconds.rounded()) } == replayed.map(\.milliseconds), "each due when the replay delivers it")
            #expect(source.sampleRate == 16_000 && source.channels == 1)
        }
    }

    @Test func fasterSpeedsDivideTheScheduleAndNoChunkComesEarly() async throws {
        let samples = (0..<8_000).map { Int16(truncatingIfNeeded: $0 * 7) }
        let wav = Self.wav(samples, rate: 16_000)
        let source = try PacedAudioSource(wav: wav, chunkFrames: 1_600, speed: 20)
        #expect(source.chunks.count == 5)
        #expect(source.chunks.map(\.dueMilliseconds) == [5, 10, 15, 20, 25])
        #expect(source.chunks.map(\.pcm).reduce(Data(), +) == samples.withUnsafeBytes { Data($0) })
        let start = ContinuousClock.now
        for try await chunk in source {
            let elapsed = ContinuousClock.now - start
            #expect(elapsed >= .microseconds(Int64(chunk.dueMilliseconds * 1000)), "chunk \(chunk.index) came before it was due")
        }
    }

    @Test func aFileThatIsNotSixteenBitPCMWAVIsRefusedWithOneSentence() throws {
        #expect(throws: FixtureError.self) { try PacedAudioSource(wav: Data("not a wave".utf8), chunkFrames: 1_600) }
        var eightBit = Self.wav([0, 1, 2], rate: 16_000)
        eightBit[34] = 8
        let refused = #expect(throws: FixtureError.self) { try PacedAudioSource(wav: eightBit, chunkFrames: 1_600) }
        #expect(refused?.description == "the WAVE file holds format 1 at 8 bits; packs hold 16-bit PCM")
    }

    /// A canonical 44-byte-header WAV of mono 16-bit samples.
    static func wav(_ samples: [Int16], rate: Int) -> Data {
        func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        func le16(_ value: Int) -> [UInt8] { (0..<2).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        let body = samples.withUnsafeBytes { [UInt8]($0) }
        var bytes = Array("RIFF".utf8) + le32(36 + body.count) + Array("WAVE".utf8)
        bytes += Array("fmt ".utf8) + le32(16) + le16(1) + le16(1) + le32(rate) + le32(rate * 2) + le16(2) + le16(16)
        bytes += Array("data".utf8) + le32(body.count) + body
        return Data(bytes)
    }
}
