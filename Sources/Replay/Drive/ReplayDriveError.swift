import Failures
import SessionModel

/// Why a drive of a system under test failed. Nothing of a failed drive is stored.
public enum ReplayDriveError: CodedError, Sendable, Equatable {
    /// The command could not be started (not found, not executable, not parseable).
    case couldNotStart(command: String, reason: String)
    /// The system exited with a status other than 0.
    case exited(status: Int32, taken: Int)
    /// The system was ended by a signal (it crashed, or something killed it).
    case killed(signal: Int32, taken: Int)
    /// The system exited with status 0 before it had taken every event.
    case exitedBeforeInputEnded(taken: Int)
    /// The system wrote something that is not an event it may produce.
    case invalidOutput(IngestProblem)
    /// The driver waited longer than the timeout for the system to take an event.
    case stoppedReading(event: Int, timeout: Duration)
    /// The system was still running, silent, longer than the timeout after its input ended.
    case silentAfterInput(timeout: Duration)
    /// The session cannot be replayed into a system (it has no `session.started`, for one).
    case sourceUnusable(String)
    /// A reported run's id names a run stored already with other content (``ReportedRun``).
    case runIDTaken(String)

    /// What kind of failure it is: the system's, or the session's (``ErrorCode/sourceUnusable``).
    public var code: ErrorCode<ReplayDriveError> {
        switch self {
        case .sourceUnusable: .sourceUnusable
        case .runIDTaken: .runIDTaken
        default: .targetFailed
        }
    }

    public var message: String { description }

    public var description: String {
        switch self {
        case .couldNotStart(let command, let reason):
            "the system under test `\(command)` could not be started: \(reason)"
        case .exited(let status, let taken):
            "the system under test exited with status \(status) after taking \(Self.events(taken))"
        case .killed(let signal, let taken):
            "the system under test was killed by signal \(signal) after taking \(Self.events(taken))"
        case .exitedBeforeInputEnded(let taken):
            "the system under test exited after taking \(Self.events(taken)), before its input ended"
        case .invalidOutput(let problem):
            "the system under test wrote an invalid event: \(problem.description.replacingOccurrences(of: "line ", with: "output line ", options: .anchored))"
        case .stoppedReading(let event, let timeout):
            "the system under test stopped reading its input: event \(event) waited \(Self.seconds(timeout)) to be taken (--timeout)"
        case .silentAfterInput(let timeout):
            "the system under test was still running and silent \(Self.seconds(timeout)) after its input ended (--timeout)"
        case .sourceUnusable(let reason), .runIDTaken(let reason):
            reason
        }
    }

    private static func events(_ count: Int) -> String { count == 1 ? "1 event" : "\(count) events" }

    private static func seconds(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }
}

extension ErrorCode where Domain == ReplayDriveError {
    /// The system under test failed (exit 5).
    public static let targetFailed = Self("target failed", .targetFailed)
    /// The session cannot be replayed into a system.
    public static let sourceUnusable = Self("source unusable", .invalidData)
    /// A reported run's id is another run's.
    public static let runIDTaken = Self("run id taken", .conflict)
}
