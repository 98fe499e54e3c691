import Foundation

/// Runs `work` on a thread of its own and returns what it gave: a whole-log read (a verification, the
/// rules' check) must not hold one of the few threads Swift's tasks run on while it waits on the disk.
func onThreadOfItsOwn<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}

/// Runs asynchronous `work` whose steps block (a session's report: the views' catch-up behind the write lock,
/// the rules' check, a replay) with its jobs on a queue of its own (SE-0417's task executor preference), so
/// that it holds none of the threads the server's other requests run on.
func onThreadOfItsOwn<T: Sendable>(_ work: @Sendable () async throws -> T) async throws -> T {
    try await withTaskExecutorPreference(QueueExecutor()) { try await work() }
}

/// A task executor that runs every job on one serial queue: libdispatch gives such a queue a thread even
/// while its shared pool is busy.
private final class QueueExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "sessionstore.blocking-work")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
