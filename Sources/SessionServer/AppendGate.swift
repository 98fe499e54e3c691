import Foundation

/// The bounded queue of appends: at most `capacity` requests wait for the store at once; one more is
/// refused at once (503 with Retry-After) instead of queueing without bound.
final class AppendGate: @unchecked Sendable {
    private let lock = NSLock()
    private let capacity: Int
    private var waiting = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Runs `body` holding a place in the queue; throws a 503 problem when the queue is full.
    func withPlace<T>(_ body: () async throws -> T) async throws -> T {
        guard take() else {
            var problem = Problem(status: .serviceUnavailable, type: "busy", title: "The server has too many appends waiting; try again shortly.")
            problem.retryAfter = 1
            throw problem
        }
        defer { release() }
        return try await body()
    }

    private func take() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard waiting < capacity else { return false }
        waiting += 1
        return true
    }

    private func release() {
        lock.lock()
        waiting -= 1
        lock.unlock()
    }
}
