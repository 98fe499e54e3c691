import Foundation
import SessionModel

/// The session list's fold: what a batch of events does to the sessions' rows. The persisted view
/// (``ProjectionRunner/catchUp(progress:)``) and copies of the list kept in memory
/// (``ProjectionRunner/foldSessionList(from:rows:)``) fold with it, so that they agree row for row.
enum SessionListFold {
    /// The sessions whose rows folding `events` from `from` starts from (the rows to have at hand).
    static func sessions(in events: [RecordedSessionEvent], from: UInt64) -> Set<UUID> {
        var sessions: Set<UUID> = []
        var previous: UUID?
        for event in events where event.feedsSessionViews && event.position >= from && event.event.session != previous {
            previous = event.event.session
            sessions.insert(event.event.session)
        }
        return sessions
    }

    /// Folds the events at or after `from` into `rows` (a session's row as it stands, or none yet).
    static func fold(_ events: [RecordedSessionEvent], from: UInt64, into rows: inout [UUID: SessionSummary]) {
        events.forEachRun { first, run in
            if let (sessions, status, subject) = first.shredding, first.position >= from {
                for session in sessions { rows[session] = .shredded(session, status: status, subject: subject) }
            }
            guard let run, run.last!.position >= from else { return }
            let session = first.event.session
            var summary = rows.removeValue(forKey: session) ?? SessionSummary(session: session)
            for event in run where event.position >= from { summary.apply(event.event) }
            rows[session] = summary
        }
    }
}

extension Array<RecordedSessionEvent> {
    /// Walks the events in log order a run at a time: `body` gets each event that feeds no session's views
    /// alone (run nil), and the first of each run of one session's consecutive events with that run.
    func forEachRun(_ body: (_ first: RecordedSessionEvent, _ run: ArraySlice<RecordedSessionEvent>?) throws -> Void) rethrows {
        var start = 0
        while start < count {
            let first = self[start]
            guard first.feedsSessionViews else {
                try body(first, nil)
                start += 1
                continue
            }
            var end = start + 1
            while end < count, self[end].feedsSessionViews, self[end].event.session == first.event.session { end += 1 }
            try body(first, self[start..<end])
            start = end
        }
    }
}
