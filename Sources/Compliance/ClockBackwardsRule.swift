import Foundation
import SessionLog
import SessionModel

/// A session's client clock (`occurred_at`) going backwards by more than ``tolerance`` from one of its
/// events to the next, in log order: a device whose clock was reset, or events sent out of order. Ingest
/// stores such sessions (real clients have clock skew); the check flags them, since every time-based
/// judgement of the session (consent before use, retention, replay pacing) rests on that clock.
struct ClockBackwardsRule: ComplianceRule {
    /// How far a session's clock may step back unreported: NTP corrections and the reordering of a
    /// client's send queue stay well under this.
    static let tolerance: Int64 = 2_000

    private var latest: [UUID: Int64] = [:]
    private var offences: [UUID: (FirstOffence, stepBack: Int64)] = [:]

    mutating func fold(_ event: RecordedSessionEvent, ledger: ConsentLedger) {
        // The audit stream's times are the clocks of the commands that wrote it, on whichever machine.
        guard !event.isCopy, !SessionStreams.holdsStoreEvents(event.event.session) else { return }
        let session = event.event.session, time = event.event.occurredAt
        defer { latest[session] = max(latest[session] ?? time, time) }
        guard let previous = latest[session], previous - time > Self.tolerance else { return }
        if offences[session] == nil {
            offences[session] = (FirstOffence(event), previous - time)
        } else {
            offences[session]!.0.more += 1
        }
    }

    func violations(asOf: Int64) -> [Violation] {
        offences.map { session, value in
            Violation(rule: .clockWentBackwards, session: session, position: value.0.position, occurredAt: value.0.occurredAt,
                      detail: "\(value.0.type.rawValue) occurred \(value.stepBack) ms before an earlier event of the session "
                        + "(more than the \(Self.tolerance) ms tolerated)\(value.0.followers)")
        }
    }
}
