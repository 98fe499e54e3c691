import ArgumentParser
import EventLog
import Foundation
import Migrations
import SessionLog
import SessionModel

/// The session named on the command line, which the store must hold.
/// The session named by `id`, which must exist and (unless `allowErased`) not have been erased.
func existingSession(_ id: String, in log: EventLog, allowErased: Bool = false) throws -> UUID {
    guard let session = UUID(uuidString: id) else {
        throw CommandFailure(.usage, "\(id) is not a session id (a UUID such as 3f2c8a1e-5b7d-4c9e-8f10-2a3b4c5d6e7f)")
    }
    guard let erased = try log.isErased(SessionStreams.session(session)) else {
        throw CommandFailure(.invalidData, "the store has no session \(session.uuidString.lowercased())")
    }
    if erased, !allowErased {
        throw CommandFailure(.invalidData, "session \(session.uuidString.lowercased()) was erased: its data keys are destroyed and "
                             + "its transcript and audio cannot be read by any means (its consent trail remains: `audit consent`)")
    }
    return session
}

/// Reads one session's events, or fails with a clear message when the store has no such session.
func readSession(_ id: String, from log: EventLog) throws -> [RecordedSessionEvent] {
    let session = try existingSession(id, in: log)
    let codec = SessionMigrations.codec
    return try log.readStream(SessionStreams.session(session), skippingErased: true) { try codec.decode($0) }
}
