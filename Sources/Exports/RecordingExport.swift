import Audio
import EventLog
import Foundation
import HexCoding
import Migrations
import Output
import SessionAudio
import SessionLog
import SessionModel

/// A session's recordings as samples, bit-identical to what was recorded: what `sessionstore audio`
/// and subject bundles write.
public enum RecordingExport {
    /// The recording of `events` (one session's, in order) named `id`, or its only recording when `id`
    /// is nil.
    /// - Throws: ``ExportError``: no such recording, or several and no `id`.
    public static func recording(_ id: String?, in events: [RecordedSessionEvent], session: String) throws(ExportError)
        -> RecordingStarted {
        let started = events.compactMap { event -> RecordingStarted? in
            if case .recordingStarted(let started) = event.event.payload { started } else { nil }
        }
        if let id {
            guard let match = started.first(where: { $0.recording == id }) else {
                throw ExportError(.unknownRecording, "session \(session) has no recording \(id)"
                                  + (started.isEmpty ? "" : "; it has " + started.map(\.recording).joined(separator: ", ")))
            }
            return match
        }
        switch started.count {
        case 0: throw ExportError(.unknownRecording, "session \(session) has no recording")
        case 1: return started[0]
        default:
            throw ExportError(.invalidRequest, "session \(session) has \(started.count) recordings; choose one with --recording: "
                              + started.map(\.recording).joined(separator: ", "))
        }
    }

    /// A recording as a file, and what it holds.
    public struct EncodedFile: Sendable {
        /// The WAV or FLAC file.
        public var bytes: [UInt8]
        /// The recording's id.
        public var recording: String
        public var format: AudioFormat
        /// Sample frames in it.
        public var frames: Int
        /// The frames of its first chunk as stored: the size of every chunk but perhaps the last.
        public var chunkFrames: Int
    }

    /// A recording of `session`, as stored in `log`, as a WAV or FLAC file: the one `id` names, or the
    /// session's only one. What `sessionstore audio` writes and `GET /v1/sessions/{id}/audio` answers.
    /// - Throws: ``ExportError`` (no such recording, several and no `id`, a chunk missing), or the store's.
    public static func file(of session: UUID, recording id: String?, as container: AudioFile.Container,
                            from log: EventLog) throws -> EncodedFile {
        let codec = SessionMigrations.codec
        let events = try log.readStream(SessionStreams.session(session), skippingErased: true) { try codec.decode($0) }
        let chosen = try recording(id, in: events, session: Hex.uuid(session))
        let (samples, format) = try samples(of: chosen, in: events, session: Hex.uuid(session))
        let first = events.lazy.compactMap { event -> RecordingChunk? in
            if case .recordingChunk(let chunk) = event.event.payload, chunk.recording == chosen.recording, chunk.index == 0 { chunk } else { nil }
        }.first
        let chunkFrames = try first.map { chunk in try chunk.frames.map(Int.init) ?? chunk.pcm().count / 2 / max(format.channels, 1) } ?? 0
        return EncodedFile(bytes: try AudioFile.encoded(samples, format: format, as: container), recording: chosen.recording,
                           format: format, frames: samples.count / max(format.channels, 1), chunkFrames: chunkFrames)
    }

    /// Every recording of `events`, in the order they started.
    public static func recordings(in events: [RecordedSessionEvent]) -> [RecordingStarted] {
        events.compactMap { event -> RecordingStarted? in
            if case .recordingStarted(let started) = event.event.payload { started } else { nil }
        }
    }

    /// The samples of `recording`: its chunks concatenated in index order. A missing or repeated index
    /// is an error, never filled.
    public static func samples(of recording: RecordingStarted, in events: [RecordedSessionEvent],
                               session: String) throws -> (samples: [Int16], format: AudioFormat) {
        let chunks = events.compactMap { event -> RecordingChunk? in
            if case .recordingChunk(let chunk) = event.event.payload, chunk.recording == recording.recording { chunk } else { nil }
        }.sorted { $0.index < $1.index }
        try checkContiguous(chunks, recording: recording.recording, session: session)
        // Decoding (FLAC) is most of the work: chunks decode on every core, then join in order.
        let decoded = parallelMap(count: chunks.count, workers: ProcessInfo.processInfo.activeProcessorCount, threshold: 64) { index in
            Result { Chunking.samples(fromPCM: try chunks[index].pcm()) }
        }
        var samples: [Int16] = []
        samples.reserveCapacity(try decoded.reduce(0) { $0 + (try $1.get()).count })
        for part in decoded { samples += try part.get() }
        return (samples, AudioFormat(sampleRate: Int(recording.sampleRate), channels: Int(recording.channels)))
    }

    /// Indices 0, 1, 2, … each once.
    private static func checkContiguous(_ chunks: [RecordingChunk], recording: String, session: String) throws(ExportError) {
        var missing: [UInt64] = []
        var repeated: [UInt64] = []
        var expected: UInt64 = 0
        for chunk in chunks {
            if chunk.index < expected { repeated.append(chunk.index); continue }
            if chunk.index > expected { missing += Array(expected..<min(chunk.index, expected + 20)) }
            expected = chunk.index + 1
        }
        guard missing.isEmpty, repeated.isEmpty else {
            var problems: [String] = []
            if !missing.isEmpty {
                problems.append("chunk \(missing.count == 1 ? "index" : "indices") \(missing.map(String.init).joined(separator: ", ")) missing")
            }
            if !repeated.isEmpty {
                problems.append("chunk \(repeated.count == 1 ? "index" : "indices") \(repeated.map(String.init).joined(separator: ", ")) stored twice")
            }
            throw ExportError(.incompleteRecording, "recording \(recording) of session \(session) has "
                              + problems.joined(separator: " and ") + "; nothing was written")
        }
    }
}
