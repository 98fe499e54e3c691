import Synchronization

/// The bounded queue of appends: at most `capacity` requests wait for the store at once; one more is
/// refused at once (503 with Retry-After) instead of queueing without bound.
final class AppendGate: Sendable {
    private let capacity: Int
    private let waiting = Mutex(0)

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Runs `body` holding a place in the queue; throws a 503 problem when the queue is full.
    func withPlace<T>(_ body: () async throws -> T) async throws -> T {
        let placed = waiting.withLock { waiting in
            guard waiting < capacity else { return false }
            waiting += 1
            return true
        }
        guard placed else {
            throw Problem(.appendsWaiting)
        }
        defer { waiting.withLock { $0 -= 1 } }
        return try await body()
    }
}
