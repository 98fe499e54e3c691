/// Where a session's events came from.
public enum SessionSource: UInt64, Hashable, Sendable, CaseIterable {
    case live = 0
    case fixture = 1
    case `import` = 2
}

/// A dictation session began.
public struct SessionStarted: Hashable, Sendable, WirePayload {
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

    init() {}

    /// The start of a session by `subject` in `locale`.
    public init(subject: SubjectHash, locale: String, device: String? = nil, appVersion: String? = nil,
                source: SessionSource = .live) {
        self.subject = subject
        self.locale = locale
        self.device = device
        self.appVersion = appVersion
        self.source = source
    }

    func write(to writer: inout WireWriter) {
        writer.bytes(8, subject?.bytes ?? [])
        writer.string(9, locale)
        writer.optionalString(10, device)
        writer.optionalString(11, appVersion)
        writer.uint(12, source.rawValue)
    }

    mutating func read(_ field: Int, _ type: UInt8, from reader: inout WireReader) throws -> Bool {
        switch field {
        case 8: subject = try reader.subject(type, field)
        case 9: locale = try reader.text(type, field)
        case 10: device = try reader.text(type, field)
        case 11: appVersion = try reader.text(type, field)
        case 12: source = SessionSource(rawValue: try reader.uint64(type, field)) ?? .live
        default: return false
        }
        return true
    }
}

/// A session paused or ended, with an optional reason.
public struct SessionTransition: Hashable, Sendable, WirePayload {
    /// Why, when the client says.
    public var reason: String?

    /// A pause or end, with an optional reason.
    public init(reason: String? = nil) { self.reason = reason }
    init() {}

    func write(to writer: inout WireWriter) { writer.optionalString(8, reason) }

    mutating func read(_ field: Int, _ type: UInt8, from reader: inout WireReader) throws -> Bool {
        guard field == 8 else { return false }
        reason = try reader.text(type, field)
        return true
    }
}

/// A session paused (a resumed session keeps appending).
public typealias SessionPaused = SessionTransition
/// A session ended.
public typealias SessionEnded = SessionTransition

/// An event with no fields of its own (session resumed).
struct EmptyPayload: WirePayload {
    func write(to writer: inout WireWriter) {}
    mutating func read(_ field: Int, _ type: UInt8, from reader: inout WireReader) throws -> Bool { false }
}
