/// Where a session's events came from.
public enum SessionSource: UInt64, Hashable, Sendable, CaseIterable {
    case live = 0
    case fixture = 1
    case `import` = 2
}

public struct SessionStarted: Hashable, Sendable, WirePayload {
    public var subject: SubjectHash?
    public var locale: String = ""
    public var device: String?
    public var appVersion: String?
    public var source: SessionSource = .live

    init() {}

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
    public var reason: String?

    public init(reason: String? = nil) { self.reason = reason }
    init() {}

    func write(to writer: inout WireWriter) { writer.optionalString(8, reason) }

    mutating func read(_ field: Int, _ type: UInt8, from reader: inout WireReader) throws -> Bool {
        guard field == 8 else { return false }
        reason = try reader.text(type, field)
        return true
    }
}

public typealias SessionPaused = SessionTransition
public typealias SessionEnded = SessionTransition

/// An event with no fields of its own (session resumed).
struct EmptyPayload: WirePayload {
    func write(to writer: inout WireWriter) {}
    mutating func read(_ field: Int, _ type: UInt8, from reader: inout WireReader) throws -> Bool { false }
}
