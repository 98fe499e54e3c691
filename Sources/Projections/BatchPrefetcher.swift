import EventLog
import Foundation
import SessionLog
import SessionModel

/// Reads and decodes batches of the log, the next one on a background thread while the caller
/// works on the current one. Records of erased sessions are left out: they cannot be read, and the
/// `subject.erased` or `retention.purged` event that erased them says what the views keep of them.
package struct BatchPrefetcher: Sendable {
    let log: EventLog
    let codec: SessionEventCodec
    let batchSize: Int

    package init(log: EventLog, codec: SessionEventCodec, batchSize: Int) {
        self.log = log
        self.codec = codec
        self.batchSize = batchSize
    }

    func read(from position: UInt64) throws -> [RecordedSessionEvent] {
        let codec = self.codec
        return try log.readAll(from: position, maxCount: batchSize, skippingErased: true) { try codec.decode($0) }
    }

    /// Starts reading the batch at `position`; `wait()` on the result gives it.
    package func prefetch(from position: UInt64) -> Pending {
        let pending = Pending(end: position + UInt64(batchSize))
        Thread.detachNewThread { [self] in
            pending.finish(Result { try read(from: position) })
        }
        return pending
    }

    /// A batch being read.
    package final class Pending: @unchecked Sendable {
        // @unchecked: `result` is written once under `condition` and read under it.
        private let condition = NSCondition()
        private var result: Result<[RecordedSessionEvent], any Error>?
        /// The position after the batch, when the log reaches that far.
        package let end: UInt64

        init(end: UInt64) {
            self.end = end
        }

        fileprivate func finish(_ result: Result<[RecordedSessionEvent], any Error>) {
            condition.lock()
            self.result = result
            condition.signal()
            condition.unlock()
        }

        package func wait() throws -> [RecordedSessionEvent] {
            condition.lock()
            defer { condition.unlock() }
            while result == nil { condition.wait() }
            return try result!.get()
        }
    }
}
