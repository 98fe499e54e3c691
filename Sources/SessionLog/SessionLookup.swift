import EventLog
import Failures
import Foundation

/// The session a person names: its whole id, or a unique prefix of its lowercase hyphenated id, as every
/// command that takes a session accepts.
public enum SessionLookup {
    /// The shortest prefix accepted.
    public static let minimumPrefix = 8

    /// The session `argument` names, which must exist and (unless `allowErased`) not have been erased.
    public static func existing(_ argument: String, in log: EventLog, allowErased: Bool = false) throws -> UUID {
        try existing(try resolve(argument, in: log), in: log, allowErased: allowErased)
    }

    /// `session`, which must exist and (unless `allowErased`) not have been erased.
    @discardableResult
    public static func existing(_ session: UUID, in log: EventLog, allowErased: Bool = false) throws -> UUID {
        let shown = session.uuidString.lowercased()
        guard let erased = try log.isErased(SessionStreams.session(session)) else {
            throw SessionLookupError(.noSuchSession, "the store has no session \(shown)")
        }
        if erased, !allowErased {
            throw SessionLookupError(.erased, "session \(shown) was erased: its data keys are destroyed and its transcript and audio "
                                     + "cannot be read by any means (its consent trail remains: `audit consent`)")
        }
        return session
    }

    /// The session a whole id or a unique prefix names, whether or not it still holds anything; an
    /// unknown or ambiguous prefix is refused, naming the candidates.
    public static func resolve(_ argument: String, in log: EventLog) throws -> UUID {
        try resolve(try SessionName.parsing(argument), in: log)
    }

    /// The session `name` names among those `visible` lets the asker see (a server's token sees only its subjects'):
    /// a prefix that begins no visible session is unknown, and one that begins several names only visible ones.
    public static func resolve(_ name: SessionName, in log: EventLog, visible: (UUID) throws -> Bool = { _ in true }) throws -> UUID {
        if let id = name.id { return id }
        let prefix = name.description
        let candidates = try log.streams(withIDPrefix: prefix).filter { try holdsSession($0, in: log) && visible($0.uuid) }
        switch candidates.count {
        case 0:
            throw SessionLookupError(.noSuchSession, "the store has no session whose id begins \(prefix)")
        case 1:
            return candidates[0].uuid
        default:
            let shown = candidates.prefix(3).map(\.description).joined(separator: ", ") + (candidates.count > 3 ? ", …" : "")
            throw SessionLookupError(.ambiguous, "session \(prefix) is ambiguous: it begins \(candidates.count) session ids (\(shown)); "
                                     + "give more characters")
        }
    }

    /// Whether `stream` holds a session, not one of the store's own streams or a subject's consent stream
    /// (whose ids are version 8 UUIDs made from the subject hash; their events, under the audit key, stay readable).
    private static func holdsSession(_ stream: StreamID, in log: EventLog) throws -> Bool {
        guard !SessionStreams.holdsStoreEvents(stream.uuid) else { return false }
        guard stream.uuid.uuidString.dropFirst(14).first == "8" else { return true }
        do {
            return try log.readStream(stream, maxCount: 1).first.map { !$0.type.hasPrefix("consent.") } ?? true
        } catch let error as EventLogError where error.code == .keyDestroyed {
            return true
        }
    }
}

/// A session argument that names no session, or none that can be read.
public struct SessionLookupError: CodedError, Sendable {
    public typealias Code = ErrorCode<SessionLookupError>

    public var code: Code
    /// One sentence naming the argument and what is wrong with it.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

extension ErrorCode where Domain == SessionLookupError {
    /// Neither a session id nor a prefix long enough to be one.
    public static let notAnID = Self("not a session id", .usage)
    /// A prefix that begins several session ids.
    public static let ambiguous = Self("ambiguous", .usage)
    /// The store has no such session.
    public static let noSuchSession = Self("no such session", .notFound)
    /// The session was erased, and what was asked for cannot be read.
    public static let erased = Self("erased", .notFound)
}
