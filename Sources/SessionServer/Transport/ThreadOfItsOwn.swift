import Foundation

/// Runs `work` on a thread of its own and returns what it gave: a whole-log read (a verification, the
/// rules' check) must not hold one of the few threads Swift's tasks run on while it waits on the disk.
func onThreadOfItsOwn<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}
