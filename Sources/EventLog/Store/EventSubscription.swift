/// A catch-up subscription: every event from a position on, history first, then each new
/// commit as it happens, in log order, never skipping or repeating one.
///
/// Events appended through the same ``EventLog`` arrive at once. On PostgreSQL, so do events appended
/// by other processes and machines (LISTEN/NOTIFY, no polling); on LMDB those arrive within
/// ``pollInterval``. Iteration ends when the task is cancelled, and throws if a record cannot
/// be read.
///
/// ```swift
/// for try await event in log.subscribe(from: checkpoint) {
///     try project(event)
/// }
/// ```
public struct EventSubscription: AsyncSequence, Sendable {
    /// Each event of the log, in position order.
    public typealias Element = RecordedEvent
    /// How often a waiting subscription on LMDB looks for events appended by other processes.
    public static let pollInterval = Duration.milliseconds(200)

    let log: EventLog
    let start: UInt64
    let skippingErased: Bool

    /// An iterator from the subscription's start position.
    public func makeAsyncIterator() -> Iterator {
        Iterator(log: log, nextPosition: start, skippingErased: skippingErased)
    }

    /// Reads history in batches, then waits for new commits.
    public struct Iterator: AsyncIteratorProtocol {
        let log: EventLog
        var nextPosition: UInt64
        let skippingErased: Bool
        private var buffer: [RecordedEvent] = []
        private var index = 0

        init(log: EventLog, nextPosition: UInt64, skippingErased: Bool) {
            self.log = log
            self.nextPosition = nextPosition
            self.skippingErased = skippingErased
        }

        /// The next event, waiting for one to be committed; `nil` once the task is cancelled.
        public mutating func next() async throws -> RecordedEvent? {
            while true {
                if index < buffer.count {
                    let event = buffer[index]
                    index += 1
                    nextPosition = event.position + 1
                    return event
                }
                if Task.isCancelled { return nil }
                buffer.removeAll(keepingCapacity: true)
                index = 0
                let visited = try log.forEachRecord(from: nextPosition, maxCount: 512, skippingErased: skippingErased,
                                                    transform: { $0 }) { buffer.append($0) }
                if buffer.isEmpty, visited.next > nextPosition {
                    nextPosition = visited.next  // every record read was erased
                    continue
                }
                if buffer.isEmpty {
                    // Woken by this log's commits at once, and by other processes' where the backend
                    // announces them; otherwise those are found by looking again every `pollInterval`.
                    let target = nextPosition + 1
                    let commits = log.commits
                    if log.externalCommits.announce() {
                        await commits.wait(untilCount: target)
                        continue
                    }
                    await withTaskGroup(of: Void.self) { group in
                        group.addTask { await commits.wait(untilCount: target) }
                        group.addTask { try? await Task.sleep(for: EventSubscription.pollInterval) }
                        await group.next()
                        group.cancelAll()
                    }
                }
            }
        }
    }
}

extension EventLog {
    /// Subscribes to the log from global position `position` (0: from the beginning). With
    /// `skippingErased`, records whose data key was destroyed are passed over; otherwise the first
    /// one ends the iteration with ``EventLogError/Code/keyDestroyed``.
    public func subscribe(from position: UInt64 = 0, skippingErased: Bool = false) -> EventSubscription {
        EventSubscription(log: self, start: position, skippingErased: skippingErased)
    }
}
