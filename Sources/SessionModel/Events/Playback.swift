/// Playback of a recording began.
public struct PlaybackStarted: Hashable, Sendable, WirePayload {
    /// The recording played.
    public var recording: String = ""
    /// Where in the recording playback began, in milliseconds.
    public var positionMilliseconds: UInt64 = 0
    /// Playback speed, 1 by default.
    public var rate: Double?

    init() {}

    /// Playback of `recording` from `positionMilliseconds` at `rate` (1 = normal speed).
    public init(recording: String, positionMilliseconds: UInt64, rate: Double? = nil) {
        self.recording = recording
        self.positionMilliseconds = positionMilliseconds
        self.rate = rate
    }

    func write(to writer: inout WireWriter) {
        writer.string(8, recording)
        writer.uint(9, positionMilliseconds)
        writer.double(10, rate)
    }

    mutating func read(_ field: Int, _ type: UInt8, from reader: inout WireReader) throws -> Bool {
        switch field {
        case 8: recording = try reader.text(type, field)
        case 9: positionMilliseconds = try reader.uint64(type, field)
        case 10: rate = try reader.real(type, field)
        default: return false
        }
        return true
    }
}

/// Playback paused or stopped at a position.
public struct PlaybackPosition: Hashable, Sendable, WirePayload {
    /// The recording played.
    public var recording: String = ""
    /// Where in the recording playback paused or stopped, in milliseconds.
    public var positionMilliseconds: UInt64 = 0

    init() {}

    /// Playback of `recording` paused or stopped at `positionMilliseconds`.
    public init(recording: String, positionMilliseconds: UInt64) {
        self.recording = recording
        self.positionMilliseconds = positionMilliseconds
    }

    func write(to writer: inout WireWriter) {
        writer.string(8, recording)
        writer.uint(9, positionMilliseconds)
    }

    mutating func read(_ field: Int, _ type: UInt8, from reader: inout WireReader) throws -> Bool {
        switch field {
        case 8: recording = try reader.text(type, field)
        case 9: positionMilliseconds = try reader.uint64(type, field)
        default: return false
        }
        return true
    }
}

/// Playback jumped from one place in a recording to another.
public struct PlaybackSeeked: Hashable, Sendable, WirePayload {
    /// The recording played.
    public var recording: String = ""
    /// Where playback was, in milliseconds.
    public var fromMilliseconds: UInt64 = 0
    /// Where playback went, in milliseconds.
    public var toMilliseconds: UInt64 = 0

    init() {}

    /// A seek in `recording` from `fromMilliseconds` to `toMilliseconds`.
    public init(recording: String, fromMilliseconds: UInt64, toMilliseconds: UInt64) {
        self.recording = recording
        self.fromMilliseconds = fromMilliseconds
        self.toMilliseconds = toMilliseconds
    }

    func write(to writer: inout WireWriter) {
        writer.string(8, recording)
        writer.uint(9, fromMilliseconds)
        writer.uint(10, toMilliseconds)
    }

    mutating func read(_ field: Int, _ type: UInt8, from reader: inout WireReader) throws -> Bool {
        switch field {
        case 8: recording = try reader.text(type, field)
        case 9: fromMilliseconds = try reader.uint64(type, field)
        case 10: toMilliseconds = try reader.uint64(type, field)
        default: return false
        }
        return true
    }
}
