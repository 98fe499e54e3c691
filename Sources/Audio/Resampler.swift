import Foundation

/// Channel mixing and sample-rate conversion for fixture audio: deterministic (no dither, no
/// threads), band-limited (a Blackman-windowed sinc, cut off below the lower Nyquist frequency).
enum Resampler {
    /// Taps on each side of the filter's centre.
    static let halfWidth = 16

    /// Averages all channels into `to` == 1, or keeps channels when the counts agree; other
    /// layouts take the first `to` channels.
    static func mix(_ samples: [Float], from: Int, to: Int) -> [Float] {
        guard from != to else { return samples }
        let frames = samples.count / from
        var out = [Float](repeating: 0, count: frames * to)
        for frame in 0..<frames {
            if to == 1 {
                var sum: Float = 0
                for channel in 0..<from { sum += samples[frame * from + channel] }
                out[frame] = sum / Float(from)
            } else {
                for channel in 0..<to { out[frame * to + channel] = samples[frame * from + min(channel, from - 1)] }
            }
        }
        return out
    }

    static func resample(_ samples: [Float], channels: Int, from: Int, to: Int) -> [Float] {
        guard from != to, !samples.isEmpty else { return samples }
        let inFrames = samples.count / channels
        let outFrames = Int((Int64(inFrames) * Int64(to) + Int64(from) - 1) / Int64(from))
        let ratio = Double(to) / Double(from)
        let cutoff = min(1, ratio) * 0.95  // of the input Nyquist frequency
        let scale = Double(max(1, Int((1 / min(1, ratio)).rounded(.up))))
        let width = Int(Double(halfWidth) * scale)
        var out = [Float](repeating: 0, count: outFrames * channels)
        for frame in 0..<outFrames {
            let centre = Double(frame) / ratio
            let first = Int(centre.rounded(.down)) - width + 1
            for channel in 0..<channels {
                var sum = 0.0
                var weights = 0.0
                for tap in first...(first + 2 * width - 1) where tap >= 0 && tap < inFrames {
                    let x = Double(tap) - centre
                    let weight = sinc(x * cutoff) * blackman(x / Double(width))
                    sum += weight * Double(samples[tap * channels + channel])
                    weights += weight
                }
                out[frame * channels + channel] = Float(weights == 0 ? 0 : sum / weights)
            }
        }
        return out
    }

    /// Floats in [-1, 1] to 16-bit, rounded and clipped.
    static func quantize(_ samples: [Float]) -> [Int16] {
        samples.map { Int16(clamping: Int(($0 * 32768).rounded())) }
    }

    private static func sinc(_ x: Double) -> Double {
        x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
    }

    /// The Blackman window over [-1, 1].
    private static func blackman(_ x: Double) -> Double {
        guard abs(x) < 1 else { return 0 }
        let phase = Double.pi * (x + 1)
        return 0.42 - 0.5 * cos(phase) + 0.08 * cos(2 * phase)
    }
}
