import Foundation

/// A recording began: its id and PCM format (16-bit signed little-endian samples).
public struct RecordingStarted: Hashable, Sendable {
    /// The recording's id, unique within its session.
    public var recording: String = ""
    /// Sample frames per second.
    public var sampleRate: UInt32 = 0
    /// Samples per frame, interleaved.
    public var channels: UInt32 = 0

    init() {}

    /// The start of `recording`, whose chunks will be 16-bit PCM at `sampleRate` with `channels`.
    public init(recording: String, sampleRate: UInt32, channels: UInt32) {
        self.recording = recording
        self.sampleRate = sampleRate
        self.channels = channels
    }
}

/// About 100 ms of a recording's 16-bit PCM, stored losslessly: as a FLAC stream (schema 2, field
/// 11) or as raw little-endian int16 samples interleaved by channel (field 10, which schema 1 used).
public struct RecordingChunk: Hashable, Sendable {
    /// How a chunk's samples are stored.
    public enum Audio: Hashable, Sendable {
        /// Little-endian int16 samples, interleaved by channel.
        case pcm([UInt8])
        /// A complete FLAC stream of the same samples (any FLAC decoder reads it).
        case flac([UInt8])
    }

    /// The recording the chunk belongs to.
    public var recording: String = ""
    /// The chunk's index in its recording, from 0; chunks concatenate in index order.
    public var index: UInt64 = 0
    /// Sample frames in the chunk when known (always for FLAC): audio time without decoding.
    public var frames: UInt64?
    /// SHA-256 of the chunk's PCM bytes (schema 2): proves the samples without decoding them.
    public var pcmSHA256: [UInt8]?
    /// The chunk's samples, raw or FLAC-coded.
    public var audio: Audio = .pcm([])

    init() {}

    /// A chunk of raw PCM.
    public init(recording: String, index: UInt64, pcm: [UInt8]) {
        self.recording = recording
        self.index = index
        self.audio = .pcm(pcm)
    }

    /// Bytes the chunk's audio takes in the payload.
    public var storedAudioBytes: Int {
        switch audio {
        case .pcm(let bytes), .flac(let bytes): bytes.count
        }
    }
}

/// An event about a whole recording (stopped, or played to the end).
public struct RecordingReference: Hashable, Sendable {
    /// The recording concerned.
    public var recording: String = ""

    init() {}
    /// The event about `recording`.
    public init(recording: String) { self.recording = recording }
}

/// A recording ended.
public typealias RecordingStopped = RecordingReference
/// Playback of a recording reached its end.
public typealias PlaybackCompleted = RecordingReference
