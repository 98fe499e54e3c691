import Foundation

/// The records both the Swift benchmark and the C reference use, written to a data directory:
/// `small.bin` (u32 little-endian length ‖ JSON, repeated), `dict.bin` (zstd dictionary trained on
/// bodies of the small events), and chunks cut from `speech.raw` (16 kHz mono int16 PCM).
public enum Workload {
    public static let smallType = "bench"
    public static let chunkType = "recording.chunk"
    public static let chunkBytes = 3200  // 100 ms of 16 kHz mono 16-bit

    /// A deterministic generator (SplitMix64), so every run and the C side see the same events.
    public struct SplitMix: RandomNumberGenerator {
        public var state: UInt64
        public init(state: UInt64) { self.state = state }
        public mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    public static let words = """
        the patient reports mild pain in left knee after running please schedule follow up visit next \
        tuesday morning send lab results to doctor patel blood pressure is normal continue current \
        medication and review in two weeks no known allergies prescribe ibuprofen four hundred milligrams \
        twice daily with food refer to physiotherapy
        """.split(separator: " ").map(String.init)

    public static let types = ["transcript.partial", "transcript.partial", "transcript.partial", "transcript.committed",
                        "playback.seeked", "session.paused"]

    /// About 180 bytes of event JSON as a dictation client would send it.
    public static func smallEvents(count: Int) -> [[UInt8]] {
        var random = SplitMix(state: 42)
        let sessions = (0..<1000).map { _ in
            UUID(uuid: withUnsafeBytes(of: (random.next(), random.next())) { $0.load(as: uuid_t.self) }).uuidString.lowercased()
        }
        return (0..<count).map { index in
            let type = types[Int(random.next() % UInt64(types.count))]
            let session = sessions[index / 50 % sessions.count]
            let text = (0..<(2 + Int(random.next() % 3))).map { _ in words[Int(random.next() % UInt64(words.count))] }
                .joined(separator: " ")
            let start = (index % 5000) * 310
            let ms = String(format: "%03d", index % 1000)
            let json = #"{"type":"\#(type)","session":"\#(session)","at":"2026-11-21T10:\#(String(format: "%02d", index / 60_000 % 60)):\#(String(format: "%02d", index / 1000 % 60)).\#(ms)Z","segment":\#(index % 400),"text":"\#(text)","start_ms":\#(start),"end_ms":\#(start + 900)}"#
            return Array(json.utf8)
        }
    }

    public static func write(_ records: [[UInt8]], to url: URL) throws {
        var data = Data()
        for record in records {
            withUnsafeBytes(of: UInt32(record.count).littleEndian) { data.append(contentsOf: $0) }
            data.append(contentsOf: record)
        }
        try data.write(to: url)
    }

    /// `count` chunks of `chunkBytes`, cut cyclically from the speech file.
    public static func chunks(fromSpeech url: URL, count: Int) throws -> [[UInt8]] {
        let speech = [UInt8](try Data(contentsOf: url))
        precondition(speech.count >= chunkBytes, "speech.raw is too short")
        let usable = speech.count / chunkBytes * chunkBytes
        return (0..<count).map { index in
            let start = index * chunkBytes % usable
            return Array(speech[start..<(start + chunkBytes)])
        }
    }

    /// The stream the batch of 1,000 events starting at `firstPosition` is appended to, on every side
    /// (C reference, EventLog, the SQLite peers): first position (big-endian) ‖ 0x5eed (big-endian).
    public static func streamBytes(firstPosition: Int) -> [UInt8] {
        withUnsafeBytes(of: UInt64(firstPosition).bigEndian) { Array($0) } + withUnsafeBytes(of: UInt64(0x5eed).bigEndian) { Array($0) }
    }

    /// The sessions a transcript read reads: `count` batch indices out of `batches`, the same on every
    /// side, each read once.
    public static func transcriptSample(batches: Int, count: Int) -> [Int] {
        var random = SplitMix(state: 7)
        var chosen = Set<Int>()
        while chosen.count < min(count, batches) { chosen.insert(Int(random.next() % UInt64(batches))) }
        return chosen.sorted().shuffled(using: &random)
    }
}
