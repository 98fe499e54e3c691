import Synchronization

/// Tells waiting subscribers that the log has grown.
package final class CommitSignal: Sendable {
    private struct State {
        var committedCount: UInt64
        var nextWaiterID = 0
        var waiters: [Int: (count: UInt64, continuation: CheckedContinuation<Void, Never>)] = [:]
    }

    private let state: Mutex<State>

    package init(committedCount: UInt64) {
        state = Mutex(State(committedCount: committedCount))
    }

    /// Records that the log now holds `count` events and wakes those waiting for as many.
    package func advance(to count: UInt64) {
        let ready = state.withLock { state in
            state.committedCount = max(state.committedCount, count)
            let ready = state.waiters.filter { $0.value.count <= state.committedCount }
            for id in ready.keys { state.waiters[id] = nil }
            return ready
        }
        for waiter in ready.values { waiter.continuation.resume() }
    }

    /// Returns once the log holds at least `count` events, or the task is cancelled.
    func wait(untilCount count: UInt64) async {
        let id = state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let waits = state.withLock { state in
                    guard state.committedCount < count, !Task.isCancelled else { return false }
                    state.waiters[id] = (count, continuation)
                    return true
                }
                if !waits { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }
}
