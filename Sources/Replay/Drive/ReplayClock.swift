import Foundation

/// The virtual clock of a drive, readable from any task: the virtual time of the last event the system
/// took, plus the wall time since then scaled by the speed (at `max` it stands still between events,
/// so output is stamped with the time of the last event taken). It never goes back.
final class ReplayClock: @unchecked Sendable {
    // @unchecked: `anchor` and `lastRead` are guarded by `lock`.
    private let lock = NSLock()
    private let speed: ReplaySpeed
    private var anchor: (virtual: Int64, wall: ContinuousClock.Instant) = (0, .now)
    private var lastRead: Int64 = 0

    init(speed: ReplaySpeed) {
        self.speed = speed
    }

    /// The system took the event at `virtual` milliseconds just now.
    func anchor(at virtual: Int64) {
        lock.withLock { anchor = (virtual, .now) }
    }

    /// Virtual milliseconds since the source's first event.
    func now() -> Int64 {
        lock.withLock {
            var virtual = anchor.virtual
            if case .factor(let factor) = speed {
                let elapsed = ContinuousClock.now - anchor.wall
                let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
                virtual += Int64(milliseconds * factor)
            }
            lastRead = max(lastRead, virtual)
            return lastRead
        }
    }
}

/// What the watchdog of a drive looks at: since when an event handed over has been left untaken (since
/// it was handed over, or since the system took the event before it), and, once the input ended, since
/// when the system has been silent.
///
/// Handing over and taking are counted, not paired: the driver may be waiting to hand over event n + 1
/// before the system's take of event n has been counted, and that late take must not clear the wait.
final class DriveMonitor: @unchecked Sendable {
    // @unchecked: every property is guarded by `lock`.
    private let lock = NSLock()
    private var waitingSince: (event: Int, since: ContinuousClock.Instant)?
    private(set) var taken = 0
    private var lastTaken: ContinuousClock.Instant?
    private var silentSince: ContinuousClock.Instant?
    private var ended = false

    /// The driver is about to hand over events up to `event` (counted from 1).
    func waiting(for event: Int) {
        lock.withLock { waitingSince = (event, .now) }
    }

    /// The system took the next `count` events.
    func took(_ count: Int) {
        lock.withLock {
            taken += count
            lastTaken = .now
        }
    }

    func inputEnded() {
        lock.withLock { silentSince = .now }
    }

    func noteOutput() {
        lock.withLock { if silentSince != nil { silentSince = .now } }
    }

    var eventsTaken: Int { lock.withLock { taken } }

    /// The target's drive returned: an event sent after this was not taken.
    func endTarget() {
        lock.withLock { ended = true }
    }

    var targetEnded: Bool { lock.withLock { ended } }

    /// Why the drive has hung, if it has been stuck longer than `timeout`: an event handed over and not
    /// taken for that long, or, once every event was taken, no output for that long since the input
    /// ended or the last event was taken (a system still reading its input is not silent).
    func hang(timeout: Duration) -> ReplayDriveError? {
        lock.withLock {
            let now = ContinuousClock.now
            if let waiting = waitingSince, taken < waiting.event {
                let stuck = now - max(waiting.since, lastTaken ?? waiting.since) > timeout
                return stuck ? .stoppedReading(event: taken + 1, timeout: timeout) : nil
            }
            if let silentSince, now - max(silentSince, lastTaken ?? silentSince) > timeout {
                return .silentAfterInput(timeout: timeout)
            }
            return nil
        }
    }
}
