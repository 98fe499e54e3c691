import Synchronization

/// A wake-up that is not lost: `notify` before `wait` makes the next `wait` return at once. One waiter at a time;
/// a cancelled waiter returns.
final class Signal: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    func notify() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.pending = true
            return nil
        }
        waiter?.resume()
    }

    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    if state.pending || Task.isCancelled {
                        state.pending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }

    /// Waits for a notification or `duration`, whichever comes first; returns whether it was notified.
    @discardableResult
    func wait(upTo duration: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.wait(); return !Task.isCancelled }
            group.addTask { try? await Task.sleep(for: duration); return false }
            let first = await group.next()!
            group.cancelAll()
            return first
        }
    }
}
