import Foundation

/// A fixture's recording handed out as a microphone hands it to a recognizer: chunk after chunk of 16-bit PCM, each
/// once it is whole, at the recorded pace or `speed` times faster. The chunks are the store's own (its 100 ms chunks,
/// ``FixtureExpectation/Recording/chunkFrames``), and chunk `i` comes `(i + 1) × chunk length` after the start, as
/// the store's replay delivers a recorded session's chunks (docs/APP-TESTING.md).
///
/// ```swift
/// for try await chunk in try PacedAudioSource(expectation: expected, in: pack) {
///     recognizer.append(chunk.pcm)
/// }
/// ```
public struct PacedAudioSource: AsyncSequence, Sendable {
    /// One chunk and when it is due, from the start of the recording.
    public struct Chunk: Sendable, Equatable {
        public var index: Int
        /// 16-bit signed little-endian samples, interleaved by channel.
        public var pcm: Data
        public var dueMilliseconds: Double
    }

    /// Every chunk in order, with when it is due at this speed.
    public let chunks: [Chunk]
    public let sampleRate: Int
    public let channels: Int

    /// The chunks of a WAV file's samples, `chunkFrames` frames each (the last may be shorter), due at `speed`.
    public init(wav: Data, chunkFrames: Int, speed: Double = 1) throws {
        guard chunkFrames > 0, speed > 0, speed.isFinite else {
            throw FixtureError("a paced source needs chunks of at least one frame and a positive speed, not \(chunkFrames) frames at \(speed)×")
        }
        let audio = try WAVFile(wav)
        sampleRate = audio.sampleRate
        channels = audio.channels
        let chunkBytes = chunkFrames * audio.channels * 2
        let chunkMilliseconds = Double(chunkFrames) * 1000 / Double(audio.sampleRate)
        var chunks: [Chunk] = []
        var offset = audio.samples.startIndex
        while offset < audio.samples.endIndex {
            let end = Swift.min(offset + chunkBytes, audio.samples.endIndex)
            let frames = Double(end - offset) / Double(audio.channels * 2)
            let due = (Double(chunks.count) * chunkMilliseconds + frames * 1000 / Double(audio.sampleRate)) / speed
            chunks.append(Chunk(index: chunks.count, pcm: Data(audio.samples[offset..<end]), dueMilliseconds: due))
            offset = end
        }
        self.chunks = chunks
    }

    /// The recording of `expectation`, read from the pack's directory `pack`.
    public init(expectation: FixtureExpectation, in pack: URL, speed: Double = 1) throws {
        let file = pack.appendingPathComponent(expectation.recording.file)
        let data: Data
        do { data = try Data(contentsOf: file) } catch { throw FixtureError("cannot read \(file.path): \(error.localizedDescription)") }
        try self.init(wav: data, chunkFrames: expectation.recording.chunkFrames, speed: speed)
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(chunks: chunks)
    }

    /// Sleeps until each chunk is due, counted from the first call to `next()`.
    public struct Iterator: AsyncIteratorProtocol {
        let chunks: [Chunk]
        var position = 0
        var start: ContinuousClock.Instant?

        public mutating func next() async throws -> Chunk? {
            guard position < chunks.count else { return nil }
            let start = self.start ?? ContinuousClock.now
            self.start = start
            let chunk = chunks[position]
            position += 1
            try await Task.sleep(until: start + .microseconds(Int64(chunk.dueMilliseconds * 1000)), clock: .continuous)
            return chunk
        }
    }
}

/// What a pack's reader refuses, in one sentence.
public struct FixtureError: Error, CustomStringConvertible, Sendable {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// The samples of a RIFF WAVE file of 16-bit PCM, as packs hold them. Hand-written because Foundation reads no audio
/// off Apple platforms and the test-support library takes no dependency: it reads the `fmt ` and `data` chunks and
/// refuses anything else but what it skips.
struct WAVFile {
    let sampleRate: Int
    let channels: Int
    let samples: Data

    init(_ data: Data) throws {
        let bytes = [UInt8](data)
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8) else {
            throw FixtureError("the file is not a RIFF WAVE file")
        }
        var format: (rate: Int, channels: Int)?
        var at = 12
        while at + 8 <= bytes.count {
            let size = u32(at + 4), body = at + 8
            guard body + size <= bytes.count else { throw FixtureError("the WAVE chunk at byte \(at) runs past the end of the file") }
            switch String(decoding: bytes[at..<(at + 4)], as: UTF8.self) {
            case "fmt ":
                guard size >= 16 else { throw FixtureError("the WAVE format chunk is \(size) bytes; 16 at least") }
                let tag = u16(body), bits = u16(body + 14)
                let pcm = tag == 1 || (tag == 0xFFFE && size >= 26 && u16(body + 24) == 1)
                guard pcm, bits == 16 else { throw FixtureError("the WAVE file holds format \(tag) at \(bits) bits; packs hold 16-bit PCM") }
                guard u16(body + 2) > 0, u32(body + 4) > 0 else { throw FixtureError("the WAVE file names no channels or no sample rate") }
                format = (u32(body + 4), u16(body + 2))
            case "data":
                guard let format else { throw FixtureError("the WAVE data chunk comes before its format chunk") }
                sampleRate = format.rate
                channels = format.channels
                samples = data.subdata(in: (data.startIndex + body)..<(data.startIndex + body + size - size % (2 * format.channels)))
                return
            default:
                break
            }
            at = body + size + size % 2
        }
        throw FixtureError("the WAVE file has no data chunk")
    }
}
