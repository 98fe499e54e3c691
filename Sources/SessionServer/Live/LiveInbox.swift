import Synchronization

/// The messages a live connection has received and not yet answered, between the task that reads the socket and
/// the one that appends: whatever arrived while an append was being made durable is taken as the next batch, so
/// that one connection's window of events costs a commit, not a commit each. Holds at most `capacity` messages and
/// `byteBudget` bytes (but always one message); a reader finding it full waits for the appender to take them, so a
/// client that sends without waiting is slowed by TCP.
final class LiveInbox<Message: Sendable>: Sendable {
    private struct State {
        var messages: [Message] = []
        var bytes = 0
        var finished = false
    }

    private let capacity: Int
    private let byteBudget: Int
    private let state = Mutex(State())
    /// Rung on each arrival and at the finish, for the appender. Each bell keeps one ring, so a ring between a look
    /// and a wait is not missed.
    let arrivals: AsyncStream<Void>
    /// Rung on each take, for a reader that found the inbox full.
    let room: AsyncStream<Void>
    private let arrived: AsyncStream<Void>.Continuation
    private let roomMade: AsyncStream<Void>.Continuation

    init(capacity: Int, byteBudget: Int) {
        self.capacity = capacity
        self.byteBudget = byteBudget
        (arrivals, arrived) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        (room, roomMade) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Adds `message`, of `bytes`, unless the inbox is full: then the reader waits for ``room`` and offers it again.
    func offer(_ message: Message, bytes: Int) -> Bool {
        let added = state.withLock { state in
            guard state.messages.isEmpty || (state.messages.count < capacity && state.bytes + bytes <= byteBudget) else { return false }
            state.messages.append(message)
            state.bytes += bytes
            return true
        }
        if added { arrived.yield() }
        return added
    }

    /// No more messages will come: the appender answers what is held, then ends.
    func finish() {
        state.withLock { $0.finished = true }
        arrived.yield()
        arrived.finish()
    }

    /// Every message held, in the order received, and whether the reader has finished; nothing and false means wait
    /// for ``arrivals``.
    func takeAll() -> (messages: [Message], finished: Bool) {
        let taken = state.withLock { state in
            defer {
                state.messages.removeAll(keepingCapacity: true)
                state.bytes = 0
            }
            return (state.messages, state.finished)
        }
        if !taken.0.isEmpty { roomMade.yield() }
        return taken
    }
}
