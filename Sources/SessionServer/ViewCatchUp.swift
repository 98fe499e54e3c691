import Dispatch
import Foundation
import Projections

/// Brings the persisted views up to date for readers, on a thread of its own (a catch-up waits for the
/// store's write lock, which must not hold one of the few threads Swift's tasks run on), and once for
/// every reader waiting at the time: readers who ask while a catch-up runs share the next one. A
/// reader's catch-up always starts after it asked, so it sees every event committed before its request
/// (a client that appended and then reads finds what it appended).
///
/// Each catch-up also keeps the in-memory session list (``SessionCatalog``) current.
final class ViewCatchUp: @unchecked Sendable {
    private let runner: ProjectionRunner
    let catalog = SessionCatalog()
    private let queue = DispatchQueue(label: "sessionstore.views.catch-up")
    private let lock = NSLock()
    private var asked = 0
    private var waiting: [(ticket: Int, continuation: CheckedContinuation<Void, any Error>)] = []

    init(runner: ProjectionRunner) {
        self.runner = runner
    }

    /// Returns once a catch-up that started after this call has finished.
    func upToDate() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            lock.withLock {
                asked += 1
                waiting.append((asked, continuation))
            }
            queue.async { self.serveWaiting() }
        }
    }

    /// On the queue: one catch-up for everyone waiting now (none when an earlier run served them all).
    private func serveWaiting() {
        let served: [CheckedContinuation<Void, any Error>] = lock.withLock {
            let covered = asked
            let now = waiting.filter { $0.ticket <= covered }.map(\.continuation)
            waiting.removeAll { $0.ticket <= covered }
            return now
        }
        guard !served.isEmpty else { return }
        do {
            try runner.catchUp(sessionRows: catalog.apply)
            try catalog.reconcile(with: runner)
            for continuation in served { continuation.resume() }
        } catch {
            for continuation in served { continuation.resume(throwing: error) }
        }
    }
}
