import Failures

/// The shape of 16-bit PCM: samples per second and interleaved channels.
public struct AudioFormat: Hashable, Sendable, CustomStringConvertible {
    /// Sample frames per second.
    public var sampleRate: Int
    /// Samples per frame, interleaved.
    public var channels: Int

    /// What sessions record unless told otherwise: 16 kHz mono (16-bit).
    public static let sessionDefault = AudioFormat(sampleRate: 16_000, channels: 1)

    /// A 16-bit PCM format.
    public init(sampleRate: Int, channels: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// Sample frames (one sample per channel) in `milliseconds` of audio, rounded down.
    public func frames(milliseconds: Int) -> Int { sampleRate * milliseconds / 1000 }

    /// Whole milliseconds of `frames` sample frames, rounded down.
    public func milliseconds(frames: Int) -> Int { frames * 1000 / sampleRate }

    public var description: String { "\(sampleRate) Hz, \(channels == 1 ? "mono" : "\(channels) channels"), 16-bit" }
}

/// Why audio could not be read, written or decoded, with the file it concerns.
///
/// Match on ``code``; `path` names the file when there is one (a stored chunk has none).
public struct AudioError: CodedError, Sendable {
    /// The kind of failure. New codes may be added; match the ones you handle.
    public typealias Code = ErrorCode<AudioError>

    /// What kind of failure this is; match on it.
    public var code: Code
    /// One sentence naming what and where.
    public var message: String
    /// The error that caused this one, when there was one.
    public var underlying: (any Error)?
    /// The file concerned, when there is one.
    public var path: String?

    /// An error of kind `code`, with its sentence and file.
    public init(_ code: Code, _ message: String, path: String? = nil, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
        self.path = path
    }
}

extension ErrorCode where Domain == AudioError {
    /// The file is missing, unreadable, or not audio libsndfile knows.
    public static let unreadable = Self("unreadable", .invalidData)
    /// The audio is damaged or is not what it declares (truncated, not whole frames, wrong length).
    public static let malformed = Self("malformed", .invalidData)
    /// The output file name asks for a container that cannot be written.
    public static let unsupportedContainer = Self("unsupported container", .usage)
    /// The output file cannot be created where it was asked for.
    public static let cannotCreate = Self("cannot create", .usage)
    /// Writing or encoding failed.
    public static let writeFailed = Self("write failed", .unexpected)
}
