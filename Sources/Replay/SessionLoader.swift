import EventLog
import Foundation
import Migrations
import SessionLog
import SessionModel

/// Reads and decodes a session's stream in batches on a background thread, so that a replay can
/// start on the first events while later ones are still being decrypted. Events are taken in order;
/// a batch is let go once the replay has passed it, and the reader stays at most ``readAhead`` events
/// ahead of the replay, so memory does not grow with the session when the replay is the slower (a
/// system under test that takes its time).
final class SessionLoader: @unchecked Sendable {
    // @unchecked: `batches`, `loadedCount`, `requested`, `failure`, `finished` and `waiting` are guarded by `lock`.
    static let batchSize = 4096
    /// The first batch is small, so the replay starts at once.
    static let firstBatchSize = 256
    /// How far the reader may run ahead of the replay, in events.
    static let readAhead = 2 * batchSize

    let count: Int
    /// Milliseconds from the session's first event to its last, by their occurred-at times.
    let recordedLength: Int64
    private let lock = NSCondition()
    /// The highest index the replay has asked for.
    private var requested = 0
    /// Decoded batches not passed yet, with the index of their first event.
    private var batches: [(start: Int, events: [RecordedSessionEvent])] = []
    private var loadedCount = 0
    private var failure: (any Error)?
    private var finished = false
    /// Replays waiting for an event not decoded yet: suspended, not blocking a thread.
    private var waiting: [(index: Int, continuation: CheckedContinuation<RecordedSessionEvent?, any Error>)] = []

    /// Starts reading the `count` events of `session` that the stream holds now.
    init(session: UUID, log: EventLog) throws {
        let stream = SessionStreams.session(session)
        count = Int(try log.streamMetadata(stream)?.version ?? 0)
        let codec = SessionMigrations.codec
        let first = try? log.readStream(stream, maxCount: 1).first.map { try codec.decode($0).event.occurredAt }
        let last = try? log.readStream(stream, direction: .backward, maxCount: 1).first.map { try codec.decode($0).event.occurredAt }
        recordedLength = max(0, (last ?? nil).flatMap { last in (first ?? nil).map { last - $0 } } ?? 0)
        let total = count
        Thread.detachNewThread { [self] in
            let codec = SessionMigrations.codec
            var next = 0  // the stream number read up to; discarded events (their key destroyed) are left out
            do {
                while next < total {
                    lock.withLock { while loadedCount - requested > Self.readAhead { lock.wait() } }
                    let size = min(next == 0 ? Self.firstBatchSize : Self.batchSize, total - next)
                    let batch = try log.readStream(stream, from: UInt64(next), maxCount: size, skippingErased: true) {
                        try codec.decode($0)
                    }
                    next += size
                    log.releaseMappedPages()  // the batch is decoded: its pages need not stay resident
                    if !batch.isEmpty { add(batch) }
                }
                finish(nil)
            } catch {
                finish(error)
            }
        }
    }

    private func add(_ batch: [RecordedSessionEvent]) {
        lock.lock()
        batches.append((loadedCount, batch))
        loadedCount += batch.count
        let ready = waiting.compactMap { waiter in taken(waiter.index).map { (waiter.continuation, $0) } }
        waiting.removeAll { $0.index < loadedCount }
        lock.unlock()
        for (continuation, event) in ready { continuation.resume(returning: event) }
    }

    private func finish(_ error: (any Error)?) {
        lock.lock()
        failure = error
        finished = true
        let stranded = waiting
        waiting = []
        lock.unlock()
        for (_, continuation) in stranded {
            if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: nil) }
        }
    }

    /// The event at `index`, once decoded; nil past the end.
    func event(at index: Int) async throws -> RecordedSessionEvent? {
        // The usual case, the event decoded already, does not suspend.
        if let ready = lock.withLock({ taken(index) }) { return ready }
        return try await withCheckedThrowingContinuation { continuation in
            lock.lock()
            if let event = taken(index) {
                lock.unlock()
                continuation.resume(returning: event)
            } else if finished {
                let failure = self.failure
                lock.unlock()
                if let failure { continuation.resume(throwing: failure) } else { continuation.resume(returning: nil) }
            } else {
                waiting.append((index, continuation))
                lock.unlock()
            }
        }
    }

    /// The event at `index` if decoded, letting go of the batches before it. Call with `lock` held.
    private func taken(_ index: Int) -> RecordedSessionEvent? {
        if index > requested {
            requested = index
            lock.signal()
        }
        while let first = batches.first, first.start + first.events.count <= index { batches.removeFirst() }
        guard let first = batches.first, index >= first.start, index < first.start + first.events.count else { return nil }
        return first.events[index - first.start]
    }
}
