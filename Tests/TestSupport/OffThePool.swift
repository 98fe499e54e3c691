import Foundation

/// Runs `body`, which blocks (a child process waited for, a synchronous read), on a thread of its own: the tasks'
/// cooperative pool has one thread per core, and a test that blocks two of them for minutes stalls every other
/// test's timers on the machine.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try body() })
        }
    }
}
