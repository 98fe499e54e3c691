/// A catch-up subscription: every event from a position on, history first, then each new
/// commit as it happens, in log order, never skipping or repeating one.
///
/// Live events are those appended through the same ``EventLog``. Iteration ends when the task
/// is cancelled, and throws if a record cannot be read.
///
/// ```swift
/// for try await event in log.subscribe(from: checkpoint) {
///     try project(event)
/// }
/// ```
public struct EventSubscription: AsyncSequence, Sendable {
    public typealias Element = RecordedEvent

    let log: EventLog
    let start: UInt64

    public func makeAsyncIterator() -> Iterator {
        Iterator(log: log, nextPosition: start)
    }

    public struct Iterator: AsyncIteratorProtocol {
        let log: EventLog
        var nextPosition: UInt64
        private var buffer: [RecordedEvent] = []
        private var index = 0

        init(log: EventLog, nextPosition: UInt64) {
            self.log = log
            self.nextPosition = nextPosition
        }

        public mutating func next() async throws -> RecordedEvent? {
            while true {
                if index < buffer.count {
                    let event = buffer[index]
                    index += 1
                    nextPosition = event.position + 1
                    return event
                }
                if Task.isCancelled { return nil }
                buffer = try log.readAll(from: nextPosition, maxCount: 512)
                index = 0
                if buffer.isEmpty {
                    await log.commits.wait(untilCount: nextPosition + 1)
                }
            }
        }
    }
}

extension EventLog {
    /// Subscribes to the log from global position `position` (0: from the beginning).
    public func subscribe(from position: UInt64 = 0) -> EventSubscription {
        EventSubscription(log: self, start: position)
    }
}
