import Foundation

/// Group commit: callers queue appends; one writer thread drains everything queued into one
/// transaction and one sync, then tells each caller its outcome. A caller hears "appended" only
/// after its events are durable.
final class AppendQueue: @unchecked Sendable {
    // @unchecked: `pending` and `state` are guarded by `condition`; `writer` is touched only by
    // the writer thread once started.
    private let condition = NSCondition()
    private var pending: [QueuedWrite] = []
    private var state = State.running
    private let writer: BatchWriter
    private let commits: CommitSignal
    private let maximumBatchEvents: Int

    private enum State { case running, stopping, stopped }

    init(writer: BatchWriter, commits: CommitSignal, maximumBatchEvents: Int) {
        self.writer = writer
        self.commits = commits
        self.maximumBatchEvents = maximumBatchEvents
        let thread = Thread { [self] in run() }
        thread.name = "EventLog writer"
        thread.start()
    }

    func submit(_ parts: [StreamAppend]) async throws -> [AppendResult] {
        try await withCheckedThrowingContinuation { continuation in
            condition.lock()
            defer { condition.unlock() }
            guard state == .running else {
                continuation.resume(throwing: EventLogError(.closed, "the event log is closed"))
                return
            }
            pending.append(.append(PendingAppend(parts: parts, continuation: continuation)))
            // Wake the writer only when it has something to do: the first append of a batch, or the
            // batch it is coalescing is complete. Waking it for every append costs a context switch each.
            if pending.count == 1 || pending.count >= lastBatchAppends { condition.signal() }
        }
    }

    /// Queues a transaction of its own that runs `body` on the writer thread.
    func submitTransaction<T: Sendable>(_ body: @escaping @Sendable (TransactionAppender) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            condition.lock()
            defer { condition.unlock() }
            guard state == .running else {
                continuation.resume(throwing: EventLogError(.closed, "the event log is closed"))
                return
            }
            pending.append(.transaction { writer in continuation.resume(with: writer.transaction(rerunnable: false, body)) })
            condition.signal()
        }
    }

    /// Finishes what is queued, then stops the writer thread; returns once it has stopped.
    func stop() {
        condition.lock()
        if state == .running { state = .stopping }
        condition.broadcast()
        while state != .stopped { condition.wait() }
        condition.unlock()
    }

    /// How many appends the last batch held and how long writing it took: the basis for coalescing.
    /// Written by the writer thread under `condition`, read by submitters under it.
    private var lastBatchAppends = 0
    private var lastWriteDuration = Duration.zero

    private func run() {
        let clock = ContinuousClock()
        defer {
            try? writer.flushIndex()  // a closed log leaves no unindexed tail; if this fails, the next open folds it in
            condition.lock()
            state = .stopped
            condition.broadcast()
            condition.unlock()
        }
        while let work = nextWork() {
            let started = clock.now
            switch work {
            case .append(let batch):
                let results = writer.write(batch)
                condition.lock()
                lastWriteDuration = clock.now - started
                lastBatchAppends = batch.count
                condition.unlock()
                commits.advance(to: writer.nextPosition)
                for (append, result) in zip(batch, results) {
                    append.continuation.resume(with: result.mapError { $0 })
                }
            case .transaction(let run):
                run(writer)
                condition.lock()
                lastBatchAppends = 1
                condition.unlock()
                commits.advance(to: writer.nextPosition)
            }
        }
    }

    /// When fewer appends are queued than the last batch held, the callers acknowledged by that batch
    /// are probably about to append again: wait for them, up to half the last write's duration, so that
    /// they share this transaction and its sync instead of waiting for the next one. A lone appender
    /// (last batch of one) never waits. Called with `condition` locked.
    private func coalesce() {
        guard lastBatchAppends > 1, pending.count < lastBatchAppends else { return }
        let window = lastWriteDuration / 2
        guard window > .microseconds(20) else { return }
        let deadline = Date(timeIntervalSinceNow: Double(window.components.attoseconds) / 1e18 + Double(window.components.seconds))
        while pending.count < lastBatchAppends, state == .running, condition.wait(until: deadline) {}
    }

    /// What one transaction of the writer does: a batch of queued appends, or one queued transaction.
    private enum Work {
        case append([PendingAppend])
        case transaction((BatchWriter) -> Void)
    }

    /// Waits for work and takes as much as one transaction should hold; nil once stopping and drained.
    private func nextWork() -> Work? {
        condition.lock()
        defer { condition.unlock() }
        while pending.isEmpty {
            if state == .stopping { return nil }
            condition.wait()
        }
        if case .transaction(let run) = pending[0] {
            pending.removeFirst()
            return .transaction(run)
        }
        coalesce()
        var batch: [PendingAppend] = []
        var events = 0
        for queued in pending {
            guard case .append(let append) = queued, batch.isEmpty || events + append.eventCount <= maximumBatchEvents else { break }
            events += append.eventCount
            batch.append(append)
        }
        pending.removeFirst(batch.count)
        return .append(batch)
    }
}

/// One entry of the writer's queue.
private enum QueuedWrite {
    case append(PendingAppend)
    case transaction((BatchWriter) -> Void)
}
