import ArgumentParser
import EventLog
import Foundation
import Migrations
import SessionLog
import SessionModel

/// The session named on the command line, which the store must hold.
func existingSession(_ id: String, in log: EventLog) throws -> UUID {
    guard let session = UUID(uuidString: id) else {
        throw CommandFailure(.usage, "\(id) is not a session id (a UUID such as 3f2c8a1e-5b7d-4c9e-8f10-2a3b4c5d6e7f)")
    }
    guard try log.streamMetadata(SessionStreams.session(session)) != nil else {
        throw CommandFailure(.invalidData, "the store has no session \(session.uuidString.lowercased())")
    }
    return session
}

/// Reads one session's events, or fails with a clear message when the store has no such session.
func readSession(_ id: String, from log: EventLog) throws -> [RecordedSessionEvent] {
    let session = try existingSession(id, in: log)
    let codec = SessionMigrations.codec
    return try log.readStream(SessionStreams.session(session)) { try codec.decode($0) }
}
