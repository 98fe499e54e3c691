import Foundation
import Synchronization

/// The virtual clock of a drive, readable from any task: the virtual time of the last event the system
/// took, plus the wall time since then scaled by the speed (at `max` it stands still between events,
/// so output is stamped with the time of the last event taken). It never goes back.
final class ReplayClock: Sendable {
    private let speed: ReplaySpeed
    /// The virtual time of the event last taken and the wall time it was taken; the last time read.
    private let state = Mutex<(anchor: (virtual: Int64, wall: ContinuousClock.Instant), lastRead: Int64)>(((0, .now), 0))

    init(speed: ReplaySpeed) {
        self.speed = speed
    }

    /// The system took the event at `virtual` milliseconds just now.
    func anchor(at virtual: Int64) {
        state.withLock { $0.anchor = (virtual, .now) }
    }

    /// Virtual milliseconds since the source's first event.
    func now() -> Int64 {
        state.withLock { state in
            var virtual = state.anchor.virtual
            if case .factor(let factor) = speed {
                let elapsed = ContinuousClock.now - state.anchor.wall
                let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
                virtual += Int64(milliseconds * factor)
            }
            state.lastRead = max(state.lastRead, virtual)
            return state.lastRead
        }
    }
}

/// What the watchdog of a drive looks at: since when an event handed over has been left untaken (since
/// it was handed over, or since the system took the event before it), and, once the input ended, since
/// when the system has been silent.
///
/// Handing over and taking are counted, not paired: the driver may be waiting to hand over event n + 1
/// before the system's take of event n has been counted, and that late take must not clear the wait.
final class DriveMonitor: Sendable {
    private struct State {
        var waitingSince: (event: Int, since: ContinuousClock.Instant)?
        var taken = 0
        var lastTaken: ContinuousClock.Instant?
        var silentSince: ContinuousClock.Instant?
        var ended = false
    }

    private let state = Mutex(State())

    /// The driver is about to hand over events up to `event` (counted from 1).
    func waiting(for event: Int) {
        state.withLock { $0.waitingSince = (event, .now) }
    }

    /// The system took the next `count` events.
    func took(_ count: Int) {
        state.withLock {
            $0.taken += count
            $0.lastTaken = .now
        }
    }

    func inputEnded() {
        state.withLock { $0.silentSince = .now }
    }

    func noteOutput() {
        state.withLock { if $0.silentSince != nil { $0.silentSince = .now } }
    }

    var eventsTaken: Int { state.withLock { $0.taken } }

    /// The target's drive returned: an event sent after this was not taken.
    func endTarget() {
        state.withLock { $0.ended = true }
    }

    var targetEnded: Bool { state.withLock { $0.ended } }

    /// Why the drive has hung, if it has been stuck longer than `timeout`: an event handed over and not
    /// taken for that long, or, once every event was taken, no output for that long since the input
    /// ended or the last event was taken (a system still reading its input is not silent).
    func hang(timeout: Duration) -> ReplayDriveError? {
        state.withLock { state in
            let now = ContinuousClock.now
            if let waiting = state.waitingSince, state.taken < waiting.event {
                let stuck = now - max(waiting.since, state.lastTaken ?? waiting.since) > timeout
                return stuck ? .stoppedReading(event: state.taken + 1, timeout: timeout) : nil
            }
            if let silentSince = state.silentSince, now - max(silentSince, state.lastTaken ?? silentSince) > timeout {
                return .silentAfterInput(timeout: timeout)
            }
            return nil
        }
    }
}
