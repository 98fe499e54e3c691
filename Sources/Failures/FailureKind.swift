/// What kind of failure an error code is, whoever meets it, and the one table of how each kind reaches
/// people: the CLI's exit status (docs/CLI.md) and the server's HTTP status and problem type
/// (docs/SERVER.md, "Problems"). Each code names its kind where it is defined (``ErrorCode``).
public enum FailureKind: String, Sendable, CaseIterable {
    /// The command line or the request is not valid.
    case usage
    /// The input, or what the store holds, is not what it must be.
    case invalidData
    /// No such thing (a session, subject, recording, record, hold or token), or none readable any more.
    case notFound
    /// The request contradicts what is stored: an expected version, an id already taken.
    case conflict
    /// A legal hold keeps what was asked to be destroyed.
    case held
    /// The log, a checkpoint or a replay does not check.
    case integrity
    /// A checkpoint someone kept does not belong to the log: not signed with its key, or not extended by it (a fork or
    /// a rewrite), found by the check they asked for.
    case inconsistent
    /// The system under test a drive feeds (`replay --drive`) failed: it exited, crashed, hung or wrote garbage.
    case targetFailed
    /// Another operation needs the store alone now.
    case busy
    /// The store's server cannot be reached.
    case unavailable
    /// The key does not open the store, or may not be used.
    case key
    /// Anything else: a fault of the program or of the system under it.
    case unexpected

    /// The CLI's exit status.
    public var exitStatus: Int32 {
        switch self {
        case .usage: 64
        case .invalidData, .notFound, .conflict: 65
        case .held: 6
        case .targetFailed: 5
        case .integrity, .inconsistent: 2
        case .busy: 75
        case .unavailable: 69
        case .key: 77
        case .unexpected: 1
        }
    }

    /// The server's HTTP status. The server's own faults (its store's integrity, its key) are 500: a
    /// client can do nothing about them, and the answer tells it nothing more.
    public var httpStatus: Int {
        switch self {
        case .usage: 400
        case .invalidData: 422
        case .notFound: 404
        case .conflict, .held, .inconsistent: 409
        case .targetFailed: 502
        case .busy, .unavailable: 503
        case .integrity, .key, .unexpected: 500
        }
    }

    /// The server's problem type, `urn:sessionstore:problem:TYPE`.
    public var problemType: String {
        switch self {
        case .usage: "bad-request"
        case .invalidData: "invalid-data"
        case .notFound: "not-found"
        case .conflict: "conflict"
        case .held: "held"
        case .inconsistent: "inconsistent"
        case .targetFailed: "target-failed"
        case .busy: "busy"
        case .unavailable: "store-unavailable"
        case .integrity, .key, .unexpected: "internal"
        }
    }

    /// The server's problem title.
    public var problemTitle: String {
        switch self {
        case .usage: "The request is not valid."
        case .invalidData: "The data is not valid."
        case .notFound: "Not found."
        case .conflict: "The request conflicts with what is stored."
        case .held: "A legal hold keeps this."
        case .inconsistent: "The log did not sign, or does not extend, this checkpoint."
        case .targetFailed: "The system under test failed."
        case .busy: "The store is busy."
        case .unavailable: "The store cannot be reached."
        case .integrity, .key, .unexpected: "The server could not answer this request."
        }
    }
}
