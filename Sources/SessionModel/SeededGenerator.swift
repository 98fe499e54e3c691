/// SplitMix64: a small, fast generator whose sequence depends only on its seed, the same on every
/// platform (Swift's default generator is random by design).
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator that always gives the same numbers from the same seed.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next number (SplitMix64).
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// True with probability `probability`.
    public mutating func chance(_ probability: Double) -> Bool {
        Double(next() >> 11) / Double(1 << 53) < probability
    }

    /// A whole number in `range` (uniform; Swift's `Int.random(in:using:)` does not promise the same
    /// sequence across versions).
    public mutating func integer(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }
}
