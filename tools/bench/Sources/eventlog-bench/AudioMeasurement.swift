import Audio
import BenchSupport
import Foundation

/// Lossless chunk coding of raw 16 kHz mono speech in 100 ms chunks: stored bytes over raw bytes,
/// and encode and decode speed as multiples of real time (one core).
struct AudioMeasurement {
    let file: URL

    func run() throws {
        let raw = try Data(contentsOf: file)
        let samples = raw.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let format = AudioFormat.sessionDefault
        let chunkFrames = format.frames(milliseconds: 100)
        let chunks = stride(from: 0, to: samples.count, by: chunkFrames).map {
            Array(samples[$0..<min($0 + chunkFrames, samples.count)])
        }
        let clock = ContinuousClock()
        var started = clock.now
        let encoded = try chunks.map { try FLACChunkCodec.encode($0, format: format) }
        let encodeSeconds = Report.seconds(clock.now - started)
        started = clock.now
        var decodedCount = 0
        for chunk in encoded { decodedCount += try FLACChunkCodec.decode(chunk).samples.count }
        let decodeSeconds = Report.seconds(clock.now - started)
        precondition(decodedCount == samples.count)
        let audioSeconds = Double(samples.count) / Double(format.sampleRate)
        let stored = encoded.reduce(0) { $0 + $1.count }
        Report.emit(["scenario": "audio", "file": file.lastPathComponent, "audio_seconds": audioSeconds,
                           "chunks": chunks.count, "raw_bytes": raw.count, "stored_bytes": stored,
                           "ratio": Double(stored) / Double(raw.count),
                           "encode_x_realtime": audioSeconds / encodeSeconds, "decode_x_realtime": audioSeconds / decodeSeconds])
    }
}
