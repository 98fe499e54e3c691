import Foundation

/// A stored session was driven into a system under test, and what that system produced was stored as
/// this session: a *run* of the source. Written by `replay --drive`, never ingested.
public struct ReplayRun: Hashable, Sendable {
    /// How a drive ended, as the run records it.
    public enum Outcome: String, Sendable, CaseIterable {
        /// The system ran to the end; nothing was checked.
        case completed
        /// The system ran to the end and its transcript passed the check (`--expect`).
        case passed
        /// The system ran to the end and its transcript failed the check.
        case failed
    }

    /// The session replayed into the system.
    public var source: UUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    /// The command as given.
    public var command: String = ""
    /// A label for the run, such as the system's version.
    public var label: String?
    /// The replay speed: `max`, `realtime` or a factor.
    public var speed: String = ""
    /// Wall clock, milliseconds since 1970, when the drive started and ended.
    public var startedAt: Int64 = 0
    public var endedAt: Int64 = 0
    /// How the drive ended.
    public var outcome: Outcome = .completed
    /// The check's word error rate, when the run was checked.
    public var wordErrorRate: Double?

    init() {}

    /// A run of `source` driven by `command`.
    public init(source: UUID, command: String, label: String? = nil, speed: String, startedAt: Int64, endedAt: Int64,
                outcome: Outcome = .completed, wordErrorRate: Double? = nil) {
        self.source = source
        self.command = command
        self.label = label
        self.speed = speed
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.outcome = outcome
        self.wordErrorRate = wordErrorRate
    }
}
