/// Playback of a recording began.
public struct PlaybackStarted: Hashable, Sendable {
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
}

/// Playback paused or stopped at a position.
public struct PlaybackPosition: Hashable, Sendable {
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
}

/// Playback jumped from one place in a recording to another.
public struct PlaybackSeeked: Hashable, Sendable {
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
}
