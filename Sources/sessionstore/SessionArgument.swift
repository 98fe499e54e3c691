import ArgumentParser
import EventLog
import Foundation
import Migrations
import SessionLog
import SessionModel

/// The shortest session id prefix a command accepts (as `export` does).
let minimumSessionPrefix = 8

/// The session named by `argument` (its full id, or a unique prefix of at least 8 characters of the
/// lowercase hyphenated id), which must exist and (unless `allowErased`) not have been erased.
func existingSession(_ argument: String, in log: EventLog, allowErased: Bool = false) throws -> UUID {
    let session = try resolveSession(argument, in: log)
    guard let erased = try log.isErased(SessionStreams.session(session)) else {
        throw CommandFailure(.invalidData, "the store has no session \(session.uuidString.lowercased())")
    }
    if erased, !allowErased {
        throw CommandFailure(.invalidData, "session \(session.uuidString.lowercased()) was erased: its data keys are destroyed and "
                             + "its transcript and audio cannot be read by any means (its consent trail remains: `audit consent`)")
    }
    return session
}

/// The session a full id or a unique prefix names; an unknown or ambiguous prefix is refused, naming the
/// candidates.
func resolveSession(_ argument: String, in log: EventLog) throws -> UUID {
    if let session = UUID(uuidString: argument) { return session }
    let prefix = argument.lowercased()
    guard prefix.count >= minimumSessionPrefix, prefix.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
        throw CommandFailure(.usage, "\(argument) is not a session id: give the whole id (a UUID such as "
                             + "3f2c8a1e-5b7d-4c9e-8f10-2a3b4c5d6e7f) or a unique prefix of at least \(minimumSessionPrefix) characters of it")
    }
    let candidates = try log.streams(withIDPrefix: prefix).filter { try isSessionStream($0, in: log) }
    switch candidates.count {
    case 0:
        throw CommandFailure(.invalidData, "the store has no session whose id begins \(prefix)")
    case 1:
        return candidates[0].uuid
    default:
        let shown = candidates.prefix(3).map(\.description).joined(separator: ", ") + (candidates.count > 3 ? ", …" : "")
        throw CommandFailure(.usage, "session \(argument) is ambiguous: it begins \(candidates.count) session ids (\(shown)); "
                             + "give more characters")
    }
}

/// Whether `stream` holds a session, not the store's audit stream or a subject's consent stream (whose
/// ids are version 8 UUIDs made from the subject hash; their events, under the audit key, stay readable).
private func isSessionStream(_ stream: StreamID, in log: EventLog) throws -> Bool {
    guard !SessionStreams.holdsStoreEvents(stream.uuid) else { return false }
    guard stream.uuid.uuidString.dropFirst(14).first == "8" else { return true }
    do {
        return try log.readStream(stream, maxCount: 1).first.map { !$0.type.hasPrefix("consent.") } ?? true
    } catch let error as EventLogError where error.code == .keyDestroyed {
        return true
    }
}

/// Reads one session's events, or fails with a clear message when the store has no such session.
func readSession(_ session: UUID, from log: EventLog) throws -> [RecordedSessionEvent] {
    let codec = SessionMigrations.codec
    return try log.readStream(SessionStreams.session(session), skippingErased: true) { try codec.decode($0) }
}
