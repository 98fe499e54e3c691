/// The shape of 16-bit PCM: samples per second and interleaved channels.
public struct AudioFormat: Hashable, Sendable, CustomStringConvertible {
    public var sampleRate: Int
    public var channels: Int

    /// What sessions record unless told otherwise: 16 kHz mono (16-bit).
    public static let sessionDefault = AudioFormat(sampleRate: 16_000, channels: 1)

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

/// Why audio could not be read, written or decoded; the message names the file and what is wrong.
public struct AudioError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
