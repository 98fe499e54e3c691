/// Where a session's events came from.
public enum SessionSource: UInt64, Hashable, Sendable, CaseIterable {
    case live = 0
    case fixture = 1
    case `import` = 2
    /// A run of a replay into a system under test (`replay --drive`); never ingested.
    case replay = 3

    /// The name ingest files and outputs use.
    public var name: String {
        switch self {
        case .live: "live"
        case .fixture: "fixture"
        case .import: "import"
        case .replay: "replay"
        }
    }
}

/// A dictation session began.
public struct SessionStarted: Hashable, Sendable {
    /// The person dictating (keyed hash; never the raw id).
    public var subject: SubjectHash?
    /// The language of the dictation, a BCP 47 tag such as `en-GB`.
    public var locale: String = ""
    /// The device recorded on, when the client names it.
    public var device: String?
    /// The client app's version, when given.
    public var appVersion: String?
    /// Where the session came from: live, a fixture, or an import.
    public var source: SessionSource = .live
    /// What the session is tagged with (``SessionLabels``): a derived session's `condition`, `speaker`, ….
    public var labels: [String: String] = [:]

    init() {}

    /// The start of a session by `subject` in `locale`.
    public init(subject: SubjectHash, locale: String, device: String? = nil, appVersion: String? = nil,
                source: SessionSource = .live, labels: [String: String] = [:]) {
        self.subject = subject
        self.locale = locale
        self.device = device
        self.appVersion = appVersion
        self.source = source
        self.labels = labels
    }
}

/// A session paused or ended, with an optional reason.
public struct SessionTransition: Hashable, Sendable {
    /// Why, when the client says.
    public var reason: String?

    /// A pause or end, with an optional reason.
    public init(reason: String? = nil) { self.reason = reason }
    init() {}
}

/// A session paused (a resumed session keeps appending).
public typealias SessionPaused = SessionTransition
/// A session ended.
public typealias SessionEnded = SessionTransition
