/// How fast a replay's virtual clock runs against the wall clock.
public enum ReplaySpeed: Sendable, Equatable {
    /// No waiting at all.
    case max
    /// Recorded gaps divided by the factor: 1 is real time, 10 ten times as fast.
    case factor(Double)

    /// At the recorded pace.
    public static let realtime = ReplaySpeed.factor(1)

    /// `max`, `realtime`, or a positive factor such as `10` or `0.5`.
    public init?(argument: String) {
        switch argument.lowercased() {
        case "max": self = .max
        case "realtime": self = .realtime
        default:
            guard let factor = Double(argument), factor.isFinite, factor > 0 else { return nil }
            self = .factor(factor)
        }
    }

    /// The wall-clock wait for a virtual gap.
    func wallMilliseconds(forVirtual milliseconds: Int64) -> Double {
        switch self {
        case .max: 0
        case .factor(let factor): Double(milliseconds) / factor
        }
    }
}
