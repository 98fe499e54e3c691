/// What an append expects of its stream; checked atomically with the append (optimistic concurrency).
///
/// A stream's version is the number of events in it: a new stream has version 0, and the next
/// event appended to a stream of version `n` gets stream number `n`.
public enum ExpectedVersion: Hashable, Sendable, CustomStringConvertible {
    /// No check.
    case any
    /// The stream must not exist yet (it holds no event).
    case noStream
    /// The stream must exist (hold at least one event).
    case streamExists
    /// The stream must hold exactly this many events.
    case exact(UInt64)

    func admits(currentVersion: UInt64) -> Bool {
        switch self {
        case .any: true
        case .noStream: currentVersion == 0
        case .streamExists: currentVersion > 0
        case .exact(let expected): currentVersion == expected
        }
    }

    public var description: String {
        switch self {
        case .any: "any"
        case .noStream: "no stream"
        case .streamExists: "stream exists"
        case .exact(let version): "version \(version)"
        }
    }
}
