import EventLog
import Failures
import EventRows
import Foundation
import Ingest
import Migrations
import SessionLog
import SessionModel
import SessionStoreClient

/// Sends a store's sessions to a server through the client library's outbox and sync (`sessionstore push`,
/// docs/CLIENT.md "Pushing a store"): each session from where the server (or the outbox, after a kill) stands, so
/// that nothing the server holds is sent again, and the server stores each event once (its id).
package struct SessionPusher: Sendable {
    /// What was done with one session.
    package struct Queued: Sendable, Equatable {
        package var session: UUID
        /// Events the server or the outbox held already.
        package var alreadyThere: Int
        /// Events put in the outbox now.
        package var queued: Int
        /// Events this store writes itself (an erasure, a run's record), which the server makes its own of.
        package var storesOwn: Int
    }

    let log: EventLog
    let client: SessionStoreClient
    let subjectKeyID: String
    /// How long to wait, all in all, for the server to say what it holds and for room in the outbox.
    let deadline: ContinuousClock.Instant

    package init(log: EventLog, client: SessionStoreClient, deadline: ContinuousClock.Instant) {
        self.log = log
        self.client = client
        self.deadline = deadline
        subjectKeyID = SubjectKeyID.of(log.identifierHash)
    }

    /// Puts in the outbox every event of `session` after the last one the outbox or the server holds.
    /// - Throws: ``PushError`` when the server's session holds an event this store's does not, or was refused before;
    ///   the client's errors when the server cannot be reached in time.
    package func queue(_ session: UUID) async throws -> Queued {
        if let problem = client.refusal(of: session) {
            throw PushError(.refusedBefore, "the server refused an event of session \(session.uuidString.lowercased()) on an earlier push (\(Self.sentence(ofProblem: problem))); "
                            + "its push stops there (move the push outbox away to start it again)")
        }
        let cursor: UUID?
        if let last = client.lastUnacknowledged(of: session) { cursor = last } else { cursor = try await client.lastStored(of: session, until: deadline) }
        var result = Queued(session: session, alreadyThere: 0, queued: 0, storesOwn: 0)
        var skipping = cursor != nil
        let stream = SessionStreams.session(session)
        let total = try log.streamMetadata(stream)?.version ?? 0
        var next: UInt64 = 0
        let codec = SessionMigrations.codec
        while next < total {
            let batch = try log.readStream(stream, from: next, maxCount: Self.batchSize, skippingErased: true) { try codec.decode($0) }
            next += UInt64(Self.batchSize)
            for recorded in batch {
                let event = recorded.event
                if skipping {
                    result.alreadyThere += 1
                    skipping = event.id != cursor
                    continue
                }
                guard IngestLine.isIngestible(event.type) else {
                    result.storesOwn += 1
                    continue
                }
                let line = try IngestLine.bytes(of: try EventRow(recorded: recorded, withAudio: true), subjectKeyID: subjectKeyID)
                do {
                    try await append(line, id: event.id, session: session, closes: event.type == .sessionEnded)
                } catch ClientError.Code.sessionRefused {
                    return result  // the server refused an event sent already: the session stops there (client.refusal)
                }
                result.queued += 1
            }
        }
        if skipping, let cursor {
            throw PushError(.notTheSameSession, "the server's session \(session.uuidString.lowercased()) ends with event \(cursor.uuidString.lowercased()), "
                            + "which this store's session does not hold: they are not the same session; nothing of it was sent")
        }
        return result
    }

    /// Appends, waiting while the outbox is full for the sync to drain it, up to the deadline.
    private func append(_ line: Data, id: UUID, session: UUID, closes: Bool) async throws {
        while true {
            do {
                return try client.append(line: line, id: id, session: session, closes: closes)
            } catch ClientError.Code.outboxFull where ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    static let batchSize = 1024

    /// The sentence of a server's problem (RFC 9457 JSON): its `detail`, else its `title`, else the text as it came.
    package static func sentence(ofProblem problem: String) -> String {
        let fields = (try? JSONSerialization.jsonObject(with: Data(problem.utf8))) as? [String: Any]
        return (fields?["detail"] as? String) ?? (fields?["title"] as? String) ?? problem
    }
}

/// Why `push` could not send a session.
package struct PushError: CodedError, Sendable {
    package typealias Code = ErrorCode<PushError>
    package let code: ErrorCode<PushError>
    package let message: String

    package init(_ code: ErrorCode<PushError>, _ message: String) {
        self.code = code
        self.message = message
    }
}

extension ErrorCode where Domain == PushError {
    /// The server's session and this store's differ: the server's last event is not in this store's session.
    package static let notTheSameSession = Self("not the same session", .conflict)
    /// An earlier push of the session was refused by the server, and the outbox keeps the refusal.
    package static let refusedBefore = Self("refused before", .invalidData)
}
