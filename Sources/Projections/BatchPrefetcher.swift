import EventLog
import Foundation
import SessionLog
import SessionModel

/// Reads and decodes batches of the log, the next one on a background thread while the caller
/// works on the current one.
struct BatchPrefetcher: Sendable {
    let log: EventLog
    let codec: SessionEventCodec
    let batchSize: Int

    func read(from position: UInt64) throws -> [RecordedSessionEvent] {
        let codec = self.codec
        return try log.readAll(from: position, maxCount: batchSize) { try codec.decode($0) }
    }

    /// Starts reading the batch at `position`; `wait()` on the result gives it.
    func prefetch(from position: UInt64) -> Pending {
        let pending = Pending()
        Thread.detachNewThread { [self] in
            pending.finish(Result { try read(from: position) })
        }
        return pending
    }

    /// A batch being read.
    final class Pending: @unchecked Sendable {
        // @unchecked: `result` is written once under `condition` and read under it.
        private let condition = NSCondition()
        private var result: Result<[RecordedSessionEvent], any Error>?

        fileprivate func finish(_ result: Result<[RecordedSessionEvent], any Error>) {
            condition.lock()
            self.result = result
            condition.signal()
            condition.unlock()
        }

        func wait() throws -> [RecordedSessionEvent] {
            condition.lock()
            defer { condition.unlock() }
            while result == nil { condition.wait() }
            return try result!.get()
        }
    }
}
