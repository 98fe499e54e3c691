import EventLog
import Foundation
import Ingest
import SessionModel

/// What a drive of a system under test produced, and how the drive went.
public struct ReplayDriveResult: Sendable {
    /// The session replayed.
    public var source: UUID
    /// The source's `session.started`, and when it happened.
    public var sourceStarted: SessionStarted
    public var sourceStartedAt: Int64
    /// When the source's first event happened: virtual time 0.
    public var firstEventAt: Int64
    /// Events the system took.
    public var eventsTaken: Int
    /// What the system produced, in the order it produced it, with the virtual time it was taken at.
    public var produced: [DrivenEvent]
    /// Wall clock, milliseconds since 1970, when the drive started and ended.
    public var startedAt: Int64
    public var endedAt: Int64
    /// The virtual clock at the end, in milliseconds since the first event.
    public var virtualMilliseconds: Int64

    init(source: UUID, sourceStarted: (occurredAt: Int64, payload: SessionStarted), firstEventAt: Int64, eventsTaken: Int,
         produced: [DrivenEvent], startedAt: Int64, endedAt: Int64, virtualMilliseconds: Int64) {
        self.source = source
        self.sourceStarted = sourceStarted.payload
        sourceStartedAt = sourceStarted.occurredAt
        self.firstEventAt = firstEventAt
        self.eventsTaken = eventsTaken
        self.produced = produced
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.virtualMilliseconds = virtualMilliseconds
    }

    /// The produced events as events of the session `run`: a time left out is the virtual time the
    /// driver took the event at (on the source's timeline), an id left out is derived from the run id
    /// and the event's place.
    public func transcriptEvents(of run: UUID) -> [SessionEvent] {
        produced.enumerated().map { index, driven in
            SessionEvent(id: driven.event.id ?? Self.eventID(run: run, index: index), session: run,
                         occurredAt: driven.event.occurredAt ?? firstEventAt + driven.virtualMilliseconds,
                         payload: driven.event.payload)
        }
    }

    /// The whole run as a session, to be stored in one append: `session.started` with the source's
    /// subject and locale at the source's start, the `replay.run` record, the transcript, and
    /// `session.ended` at the latest time of any of them.
    public func runEvents(of run: UUID, record: ReplayRun) -> [SessionEvent] {
        var started = sourceStarted
        started.device = "replay"
        started.appVersion = record.label
        started.source = .replay
        let transcript = transcriptEvents(of: run)
        let end = max(transcript.map(\.occurredAt).max() ?? sourceStartedAt, firstEventAt + virtualMilliseconds, sourceStartedAt)
        var events = [SessionEvent(id: Self.eventID(run: run, index: -1), session: run, occurredAt: sourceStartedAt,
                                   payload: .sessionStarted(started)),
                      SessionEvent(id: Self.eventID(run: run, index: -2), session: run, occurredAt: sourceStartedAt,
                                   payload: .replayRun(record))]
        events += transcript
        events.append(SessionEvent(id: Self.eventID(run: run, index: -3), session: run, occurredAt: end,
                                   payload: .sessionEnded(SessionEnded(reason: "replay run \(record.outcome.rawValue)"))))
        return events
    }

    static func eventID(run: UUID, index: Int) -> UUID {
        var digest = SHA256()
        digest.update("sessionstore replay run event v1")
        digest.update(run.wireBytes)
        withUnsafeBytes(of: Int64(index).bigEndian) { digest.update($0) }
        return UUID(version8From: digest.digest())
    }
}
