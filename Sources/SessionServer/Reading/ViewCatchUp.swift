import Dispatch
import Foundation
import Synchronization

/// Brings a view up to date for readers, on a queue of its own (a catch-up may wait for the store's
/// write lock, which must not hold one of the few threads Swift's tasks run on), and once for every
/// reader waiting at the time: readers who ask while a catch-up runs share the next one. A reader's
/// catch-up always starts after it asked, so it sees every event committed before its request (a
/// client that appended and then reads finds what it appended).
///
/// Between readers, ``refreshSoon()`` keeps the view current in the background, so that a reader's
/// own catch-up has little left to fold; at most a tenth of the time goes to those background runs.
final class ViewCatchUp: Sendable {
    private struct State {
        var asked = 0
        var waiting: [(ticket: Int, continuation: CheckedContinuation<Void, any Error>)] = []
        var refreshing = false
        var stopped = false
        /// How long the last catch-up took: a background one waits at least ten times as long.
        var lastRun = Duration.zero
    }

    private let work: @Sendable () throws -> Void
    private let delay: Duration
    private let queue: DispatchQueue
    private let state = Mutex(State())

    /// `work` brings the view up to date; a background refresh runs it `delay` after it is asked for.
    init(_ name: String, refreshDelay delay: Duration, work: @escaping @Sendable () throws -> Void) {
        self.work = work
        self.delay = delay
        queue = DispatchQueue(label: "sessionstore.views.\(name)")
    }

    /// Returns once a catch-up that started after this call has finished.
    func upToDate() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            state.withLock { state in
                state.asked += 1
                state.waiting.append((state.asked, continuation))
            }
            queue.async { self.serveWaiting() }
        }
    }

    /// Schedules a catch-up in the background, `delay` from now or ten times the last catch-up's
    /// duration if that is longer, unless one is scheduled already: the server calls it after every
    /// append. Its failure is left for the next reader to meet.
    func refreshSoon() {
        let wait: Duration? = state.withLock { state in
            guard !state.refreshing, !state.stopped else { return nil }
            state.refreshing = true
            return max(delay, state.lastRun * 10)
        }
        guard let wait else { return }
        let (seconds, attoseconds) = wait.components
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))) {
            let run = self.state.withLock { state in
                state.refreshing = false
                return !state.stopped
            }
            if run { try? self.timed(self.work) }
        }
    }

    /// Runs `work`, noting how long it took.
    private func timed(_ work: () throws -> Void) throws {
        let started = ContinuousClock.now
        defer {
            let took = ContinuousClock.now - started
            state.withLock { $0.lastRun = took }
        }
        try work()
    }

    /// Runs no more background catch-ups, and returns once the one running, if any, has finished.
    func stop() {
        state.withLock { $0.stopped = true }
        queue.sync {}
    }

    /// On the queue: one catch-up for everyone waiting now (none when an earlier run served them all).
    private func serveWaiting() {
        let served: [CheckedContinuation<Void, any Error>] = state.withLock { state in
            let covered = state.asked
            let now = state.waiting.filter { $0.ticket <= covered }.map(\.continuation)
            state.waiting.removeAll { $0.ticket <= covered }
            return now
        }
        guard !served.isEmpty else { return }
        do {
            try timed(work)
            for continuation in served { continuation.resume() }
        } catch {
            for continuation in served { continuation.resume(throwing: error) }
        }
    }
}
