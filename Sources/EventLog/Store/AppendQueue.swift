import Foundation

/// Group commit: callers queue appends; one writer thread drains everything queued into one
/// transaction and one sync, then tells each caller its outcome. A caller hears "appended" only
/// after its events are durable.
final class AppendQueue: @unchecked Sendable {
    // @unchecked: `pending` and `state` are guarded by `condition`; `writer` is touched only by
    // the writer thread once started.
    private let condition = NSCondition()
    private var pending: [PendingAppend] = []
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

    func submit(stream: StreamID, events: [ProposedEvent], expectedVersion: ExpectedVersion,
                keyScope: KeyScope) async throws -> AppendResult {
        try await withCheckedThrowingContinuation { continuation in
            condition.lock()
            defer { condition.unlock() }
            guard state == .running else {
                continuation.resume(throwing: EventLogError(.closed, "the event log is closed"))
                return
            }
            pending.append(PendingAppend(stream: stream, events: events, expectedVersion: expectedVersion,
                                         keyScope: keyScope, continuation: continuation))
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

    private func run() {
        while let batch = nextBatch() {
            let results = writer.write(batch)
            commits.advance(to: writer.nextPosition)
            for (append, result) in zip(batch, results) {
                append.continuation.resume(with: result.mapError { $0 })
            }
        }
    }

    /// Waits for work and takes as much as one transaction should hold; nil once stopped.
    private func nextBatch() -> [PendingAppend]? {
        condition.lock()
        defer { condition.unlock() }
        while pending.isEmpty {
            if state == .stopping {
                state = .stopped
                condition.broadcast()
                return nil
            }
            condition.wait()
        }
        var taken = 0
        var events = 0
        while taken < pending.count, taken == 0 || events + pending[taken].events.count <= maximumBatchEvents {
            events += pending[taken].events.count
            taken += 1
        }
        let batch = Array(pending[..<taken])
        pending.removeFirst(taken)
        return batch
    }
}
