import Foundation

/// Tells waiting subscribers that the log has grown.
package final class CommitSignal: @unchecked Sendable {
    // @unchecked: all state is guarded by `lock`.
    private let lock = NSLock()
    private var committedCount: UInt64
    private var nextWaiterID = 0
    private var waiters: [Int: (count: UInt64, continuation: CheckedContinuation<Void, Never>)] = [:]

    package init(committedCount: UInt64) {
        self.committedCount = committedCount
    }

    /// Records that the log now holds `count` events and wakes those waiting for as many.
    package func advance(to count: UInt64) {
        lock.lock()
        committedCount = max(committedCount, count)
        let ready = waiters.filter { $0.value.count <= committedCount }
        for id in ready.keys { waiters[id] = nil }
        lock.unlock()
        for waiter in ready.values { waiter.continuation.resume() }
    }

    /// Returns once the log holds at least `count` events, or the task is cancelled.
    func wait(untilCount count: UInt64) async {
        let id = lock.withLock {
            nextWaiterID += 1
            return nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                lock.lock()
                if committedCount >= count || Task.isCancelled {
                    lock.unlock()
                    continuation.resume()
                    return
                }
                waiters[id] = (count, continuation)
                lock.unlock()
            }
        } onCancel: {
            lock.lock()
            let waiter = waiters.removeValue(forKey: id)
            lock.unlock()
            waiter?.continuation.resume()
        }
    }
}
