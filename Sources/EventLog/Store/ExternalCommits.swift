import Synchronization

/// Brings commits made to the store by other processes (or machines) to a log's ``CommitSignal``.
///
/// On PostgreSQL a ``PostgresCommitListener`` does it through LISTEN/NOTIFY; it is started by the first
/// subscription that has to wait, so that a log nobody subscribes to holds no extra connection. LMDB has
/// no such announcement: there subscriptions look again every ``EventSubscription/pollInterval``.
final class ExternalCommits: Sendable {
    private let environment: StoreEnvironment
    private let signal: CommitSignal
    /// The listener once started; `stopped` once ``stop()`` was called, after which none starts.
    private let state = Mutex<(listener: (any CommitListener)?, stopped: Bool)>((nil, false))

    init(environment: StoreEnvironment, signal: CommitSignal) {
        self.environment = environment
        self.signal = signal
    }

    /// Makes sure other processes' commits advance the signal; false when the backend cannot announce
    /// them (LMDB), so the caller must look again from time to time.
    func announce() -> Bool {
        state.withLock { state in
            if state.listener == nil, !state.stopped { state.listener = try? environment.commitListener(advancing: signal) }
            return state.listener != nil
        }
    }

    /// Stops listening, for good.
    func stop() {
        state.withLock { state in
            state.stopped = true
            defer { state.listener = nil }
            return state.listener
        }?.stop()
    }
}
