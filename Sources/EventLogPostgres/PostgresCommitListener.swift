import EventLog
import Foundation
import Synchronization

/// Wakes a log's subscriptions when another process or machine commits to the same PostgreSQL store.
///
/// Every write transaction that appends sends `NOTIFY` on the store's channel with the position after
/// its last record (``PostgresStorage/notifyCommit(on:next:)``); PostgreSQL delivers it only when the
/// transaction commits. The listener holds a connection of its own that `LISTEN`s on that channel and
/// sleeps in `poll` on its socket, so nothing is asked of the server while nobody writes. After connecting
/// (and again after any reconnection) it reads how far the log is, so commits made while it was away wake
/// subscribers too.
final class PostgresCommitListener: @unchecked Sendable {
    // @unchecked: the pipe's ends are set once in init and closed by the thread, holding `stopped`'s lock,
    // once it has seen `stopped` (after `stop` wrote to it, holding the same lock).
    private let url: String
    private let signal: CommitSignal
    private let stopped = Mutex(false)
    /// Written by `stop` to wake the thread from `poll`.
    private let wake: (read: Int32, write: Int32)

    /// How long to wait before connecting again after the server went away.
    private static let reconnectDelay = 0.5

    init(url: String, signal: CommitSignal) throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw PostgresError(description: "cannot make a pipe for the commit listener: errno \(errno)") }
        self.url = url
        self.signal = signal
        wake = (ends[0], ends[1])
        let thread = Thread { [self] in run() }
        thread.name = "sessionstore-commit-listener"
        thread.start()
    }

    /// Ends the listening thread, which then closes its connection. Does not wait for it: the thread
    /// may be connecting to a server that does not answer.
    func stop() {
        stopped.withLock { stopped in
            guard !stopped else { return }
            stopped = true
            var byte: UInt8 = 1
            _ = write(wake.write, &byte, 1)
        }
    }

    private var isStopped: Bool { stopped.withLock { $0 } }

    private func run() {
        defer {
            stopped.withLock { _ in
                close(wake.read)
                close(wake.write)
            }
        }
        while !isStopped {
            do {
                try listen(on: PGConnection(url: url))
            } catch {
                // The server is unreachable or went away: try again shortly, until stopped.
                if waitForWake(timeout: Self.reconnectDelay) { return }
            }
        }
    }

    /// Listens until stopped (returns) or the connection breaks (throws).
    private func listen(on connection: PGConnection) throws {
        try connection.execute("LISTEN \(try PostgresStorage.commitChannel(on: connection))")
        let next = try connection.query("SELECT coalesce(max(position) + 1, 0) FROM events").int64(row: 0, column: 0) ?? 0
        signal.advance(to: UInt64(next))
        while true {
            var descriptors = [pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            guard poll(&descriptors, 2, -1) >= 0 || errno == EINTR else {
                throw PostgresError(description: "poll on the listening connection failed: errno \(errno)")
            }
            if descriptors[1].revents != 0 { return }
            guard descriptors[0].revents != 0 else { continue }
            for payload in try connection.receivedNotifications() {
                if let next = UInt64(payload) { signal.advance(to: next) }
            }
        }
    }

    /// Sleeps up to `timeout` seconds; true when woken by ``stop()``.
    private func waitForWake(timeout: Double) -> Bool {
        var descriptor = pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, Int32(timeout * 1000)) > 0
    }
}
