/// A recording drawn as its minimum and maximum per pixel column, all channels together: one SVG
/// path, however long the recording.
package struct Waveform: Sendable, Equatable {
    package var minimums: [Int16]
    package var maximums: [Int16]

    /// `columns` columns over interleaved `samples` of `channels` channels; none when there are no
    /// frames. Each column covers its share of the frames (at least one).
    package init(samples: [Int16], channels: Int, columns: Int) {
        let channels = max(channels, 1)
        let frames = samples.count / channels
        let columns = frames == 0 ? 0 : min(max(columns, 1), frames)
        minimums = []
        maximums = []
        minimums.reserveCapacity(columns)
        maximums.reserveCapacity(columns)
        samples.withUnsafeBufferPointer { samples in
            for column in 0..<columns {
                let first = frames * column / columns
                let end = max(frames * (column + 1) / columns, first + 1)
                var low = Int16.max, high = Int16.min
                for sample in samples[(first * channels)..<(end * channels)] {
                    low = min(low, sample)
                    high = max(high, sample)
                }
                minimums.append(low)
                maximums.append(high)
            }
        }
    }

    package var columns: Int { maximums.count }

    /// The outline as an SVG path in a box `columns` wide and `height` high (silence on the middle
    /// line): along the maxima left to right, back along the minima, closed.
    package func path(height: Int) -> String {
        guard columns > 0 else { return "" }
        var out = "M"
        out.reserveCapacity(columns * 16)
        func y(_ sample: Int16) -> Int {  // tenths of a pixel: exact, and the same text on every platform
            (Int(32767 - Int(sample)) * height * 10 + 32767) / 65534
        }
        func point(_ x: Int, _ tenths: Int) {
            out += "\(x),\(tenths / 10).\(tenths % 10)"
        }
        for (x, value) in maximums.enumerated() {
            if x > 0 { out += "L" }
            point(x, y(value))
        }
        for x in stride(from: columns - 1, through: 0, by: -1) {
            out += "L"
            point(x, y(minimums[x]))
        }
        return out + "Z"
    }
}
