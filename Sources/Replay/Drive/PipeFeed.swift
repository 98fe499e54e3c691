import Foundation

/// The standard input of a driven command: a pipe of our own, its buffer enlarged where the system
/// allows (Linux `F_SETPIPE_SZ`), written by one thread. The driver hands each batch of lines over
/// (``send(_:events:)``) and goes on; it waits only while `capacity` bytes are queued. Swift
/// Subprocess's asynchronous writer cost a hand-off between threads per write and a 64 KiB pipe: with
/// this, `replay --drive` of a one-hour session went from 1.22-1.27x to 1.03-1.11x the time of `cat`
/// into the same consumer (docs/history/performance.md, "Driving a system under test").
///
/// Events count as taken when the command has *read* their bytes, not when they entered the pipe: the
/// writer asks the kernel how much of the pipe is unread (`FIONREAD`, which Linux answers on the write
/// end too) and reports the batches read past (`onTaken`), so a command that stops reading is found out
/// however large the buffers. A command that exits or closes its input ends the writing: a write fails
/// with EPIPE (or the pipe reports an error) and every later ``send(_:events:)`` returns false.
final class PipeFeed: @unchecked Sendable {
    // @unchecked: everything below `condition` is guarded by it; `written` and `unreadBatches` belong to
    // the writer thread.
    /// The read end, for the command (closed here once the command has it).
    let readEnd: Int32
    private let writeEnd: Int32
    private let capacity: Int
    private let onTaken: @Sendable (Int) -> Void
    private let condition = NSCondition()
    private var queue: [(bytes: [UInt8], events: Int)] = []
    private var queuedBytes = 0
    private var finished = false
    private var broken = false
    private var closed = false
    private var roomWaiter: CheckedContinuation<Void, Never>?
    private var closeWaiter: CheckedContinuation<Void, Never>?
    private var written: UInt64 = 0
    private var unreadBatches: [(end: UInt64, events: Int)] = []

    /// The pipe buffer asked for: large enough that the writer seldom waits for the reader.
    static let pipeBytes: Int32 = 1 << 20
    /// `F_SETPIPE_SZ` (Linux, since 2.6.35), which Glibc's Swift module does not export (it needs `_GNU_SOURCE`).
    private static let setPipeSize: Int32 = 1031
    /// How often the writer looks at what the command has read while it has nothing to write.
    private static let lookInterval: TimeInterval = 0.02
    /// How often it looks once everything was written: the command waits for the end of its input meanwhile.
    private static let drainInterval: TimeInterval = 0.001

    init(capacity: Int = 4 << 20, onTaken: @escaping @Sendable (Int) -> Void) throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }  // the command gets the read end as its fd 0 alone
        readEnd = ends[0]
        writeEnd = ends[1]
        self.capacity = capacity
        self.onTaken = onTaken
        #if os(Linux)
        _ = fcntl(writeEnd, Self.setPipeSize, Self.pipeBytes)  // best effort: a lower system limit refuses it
        #endif
        let thread = Thread { [self] in writeAll() }
        thread.name = "replay-stdin"
        thread.start()
    }

    /// Queues `bytes` (the lines of `events` events) for the command, waiting while the queue is full;
    /// false once the command stopped reading.
    func send(_ bytes: [UInt8], events: Int) async -> Bool {
        while true {
            let queued: Bool? = condition.withLock {
                if broken { return false }
                guard queuedBytes < capacity else { return nil }
                queue.append((bytes, events))
                queuedBytes += bytes.count
                condition.signal()
                return true
            }
            if let queued { return queued }
            await withCheckedContinuation { continuation in
                let resume = condition.withLock { () -> Bool in
                    if broken || queuedBytes < capacity { return true }
                    roomWaiter = continuation
                    return false
                }
                if resume { continuation.resume() }
            }
        }
    }

    /// Ends the command's input once everything queued was written and read; returns whether it was.
    func finish() async -> Bool {
        await withCheckedContinuation { continuation in
            let resume = condition.withLock { () -> Bool in
                finished = true
                condition.signal()
                if closed || broken { return true }
                closeWaiter = continuation
                return false
            }
            if resume { continuation.resume() }
        }
        return condition.withLock { !broken }
    }

    /// Stops writing (the drive ends early): the command's input ends once the writer is free, and
    /// nothing waits for it meanwhile (a write blocked on a command that stopped reading ends with EPIPE
    /// when its process group is killed).
    func abandon() {
        let waiters = condition.withLock { () -> [CheckedContinuation<Void, Never>?] in
            broken = true
            finished = true
            queue.removeAll()
            queuedBytes = 0
            condition.signal()
            defer { roomWaiter = nil; closeWaiter = nil }
            return [roomWaiter, closeWaiter]
        }
        waiters.forEach { $0?.resume() }
    }

    private func writeAll() {
        while let batch = nextBatch() {
            let done = write(batch.bytes)
            if done { unreadBatches.append((written, batch.events)) }
            reportTaken()
            let waiter = condition.withLock { () -> CheckedContinuation<Void, Never>? in
                queuedBytes -= batch.bytes.count
                if !done {
                    broken = true
                    queue.removeAll()
                    queuedBytes = 0
                }
                defer { roomWaiter = nil }
                return roomWaiter
            }
            waiter?.resume()
        }
        // Everything was written: wait for the command to read it, or to go, before ending its input.
        while !unreadBatches.isEmpty, !isBroken {
            if readerGone(waitingUpTo: Self.drainInterval) {
                reportTaken()
                if !unreadBatches.isEmpty { condition.withLock { broken = true } }  // it went without reading all
                break
            }
            reportTaken()
        }
        let waiters = condition.withLock { () -> [CheckedContinuation<Void, Never>?] in
            closed = true
            defer { closeWaiter = nil; roomWaiter = nil }
            return [closeWaiter, roomWaiter]
        }
        close(writeEnd)
        waiters.forEach { $0?.resume() }
    }

    /// The next batch to write, looking at what the command has read while there is none; nil once
    /// the input is finished (or broken) and all was written.
    private func nextBatch() -> (bytes: [UInt8], events: Int)? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty, !finished {
            if unreadBatches.isEmpty {
                condition.wait()
            } else {
                _ = condition.wait(until: Date(timeIntervalSinceNow: Self.lookInterval))
                condition.unlock()
                reportTaken()
                condition.lock()
            }
        }
        guard !broken, !queue.isEmpty else { return nil }
        return queue.removeFirst()
    }

    private var isBroken: Bool { condition.withLock { broken } }

    /// Writes all of `bytes`, blocking while the pipe is full (a command that stopped reading keeps it
    /// full: the watchdog sees no event taken, and the process group it kills takes the pipe's read end
    /// with it, which ends the write with EPIPE); false when the command is gone.
    private func write(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let result = Foundation.write(writeEnd, buffer.baseAddress! + offset, buffer.count - offset)
                if result > 0 {
                    offset += result
                    written += UInt64(result)
                } else if result < 0, errno == EINTR {
                    continue
                } else {
                    return false
                }
            }
            return true
        }
    }

    /// Whether the command closed its end of the pipe, waiting up to `interval` for that.
    private func readerGone(waitingUpTo interval: TimeInterval) -> Bool {
        var descriptor = pollfd(fd: writeEnd, events: 0, revents: 0)
        _ = poll(&descriptor, 1, Int32(interval * 1000))
        return descriptor.revents & Int16(POLLERR | POLLHUP) != 0
    }

    /// Reports the batches the command has read past since the last report.
    private func reportTaken() {
        guard !unreadBatches.isEmpty else { return }
        var unread: Int32 = 0
        guard ioctl(writeEnd, UInt(FIONREAD), &unread) == 0 else { return }
        let read = written - UInt64(max(0, unread))
        var events = 0
        while let first = unreadBatches.first, first.end <= read {
            events += first.events
            unreadBatches.removeFirst()
        }
        if events > 0 { onTaken(events) }
    }
}
