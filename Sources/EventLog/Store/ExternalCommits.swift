import Foundation

/// Brings commits made to the store by other processes (or machines) to a log's ``CommitSignal``.
///
/// On PostgreSQL a ``PostgresCommitListener`` does it through LISTEN/NOTIFY; it is started by the first
/// subscription that has to wait, so that a log nobody subscribes to holds no extra connection. LMDB has
/// no such announcement: there subscriptions look again every ``EventSubscription/pollInterval``.
final class ExternalCommits: @unchecked Sendable {
    // @unchecked: `listener` and `stopped` are guarded by `lock`.
    private let environment: StoreEnvironment
    private let signal: CommitSignal
    private let lock = NSLock()
    private var listener: (any CommitListener)?
    private var stopped = false

    init(environment: StoreEnvironment, signal: CommitSignal) {
        self.environment = environment
        self.signal = signal
    }

    /// Makes sure other processes' commits advance the signal; false when the backend cannot announce
    /// them (LMDB), so the caller must look again from time to time.
    func announce() -> Bool {
        lock.withLock {
            if listener == nil, !stopped { listener = try? environment.commitListener(advancing: signal) }
            return listener != nil
        }
    }

    /// Stops listening, for good.
    func stop() {
        let listener = lock.withLock {
            stopped = true
            defer { self.listener = nil }
            return self.listener
        }
        listener?.stop()
    }
}
