/// A recording began: its id and PCM format (16-bit signed little-endian samples).
public struct RecordingStarted: Hashable, Sendable, WirePayload {
    public var recording: String = ""
    public var sampleRate: UInt32 = 0
    public var channels: UInt32 = 0

    init() {}

    public init(recording: String, sampleRate: UInt32, channels: UInt32) {
        self.recording = recording
        self.sampleRate = sampleRate
        self.channels = channels
    }

    func write(to writer: inout WireWriter) {
        writer.string(8, recording)
        writer.uint(9, UInt64(sampleRate))
        writer.uint(10, UInt64(channels))
    }

    mutating func read(_ field: Int, _ type: UInt8, from reader: inout WireReader) throws -> Bool {
        switch field {
        case 8: recording = try reader.text(type, field)
        case 9: sampleRate = try reader.uint32(type, field)
        case 10: channels = try reader.uint32(type, field)
        default: return false
        }
        return true
    }
}

/// About 100 ms of PCM: little-endian int16 samples, interleaved by channel.
public struct RecordingChunk: Hashable, Sendable, WirePayload {
    public var recording: String = ""
    /// The chunk's index in its recording, from 0; chunks concatenate in index order.
    public var index: UInt64 = 0
    public var pcm: [UInt8] = []

    init() {}

    public init(recording: String, index: UInt64, pcm: [UInt8]) {
        self.recording = recording
        self.index = index
        self.pcm = pcm
    }

    func write(to writer: inout WireWriter) {
        writer.string(8, recording)
        writer.uint(9, index)
        writer.bytes(10, pcm)
    }

    mutating func read(_ field: Int, _ type: UInt8, from reader: inout WireReader) throws -> Bool {
        switch field {
        case 8: recording = try reader.text(type, field)
        case 9: index = try reader.uint64(type, field)
        case 10: pcm = try reader.data(type, field)
        default: return false
        }
        return true
    }
}

/// An event about a whole recording (stopped, or played to the end).
public struct RecordingReference: Hashable, Sendable, WirePayload {
    public var recording: String = ""

    init() {}
    public init(recording: String) { self.recording = recording }

    func write(to writer: inout WireWriter) { writer.string(8, recording) }

    mutating func read(_ field: Int, _ type: UInt8, from reader: inout WireReader) throws -> Bool {
        guard field == 8 else { return false }
        recording = try reader.text(type, field)
        return true
    }
}

public typealias RecordingStopped = RecordingReference
public typealias PlaybackCompleted = RecordingReference
