import EventLog
import Foundation
import Migrations
import SessionModel

/// Reads and decodes a session's stream in batches on a background thread, so that a replay can
/// start on the first events while later ones are still being decrypted.
final class SessionLoader: @unchecked Sendable {
    // @unchecked: `loaded`, `failure` and `finished` are guarded by `condition`.
    static let batchSize = 4096

    let count: Int
    private let condition = NSCondition()
    private var loaded: [RecordedSessionEvent] = []
    private var failure: (any Error)?
    private var finished = false

    /// Starts reading the `count` events of `session` that the stream holds now.
    init(session: UUID, log: EventLog) throws {
        let stream = SessionStreams.session(session)
        count = Int(try log.streamMetadata(stream)?.version ?? 0)
        let total = count
        Thread.detachNewThread { [self] in
            let codec = SessionMigrations.codec
            var next = 0
            do {
                while next < total {
                    let batch = try log.readStream(stream, from: UInt64(next), maxCount: min(Self.batchSize, total - next)) {
                        try codec.decode($0)
                    }
                    guard !batch.isEmpty else { break }
                    next += batch.count
                    condition.lock()
                    loaded += batch
                    condition.broadcast()
                    condition.unlock()
                }
                finish(nil)
            } catch {
                finish(error)
            }
        }
    }

    private func finish(_ error: (any Error)?) {
        condition.lock()
        failure = error
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// The event at `index`, waiting for it to be decoded; nil past the end.
    func event(at index: Int) throws -> RecordedSessionEvent? {
        condition.lock()
        defer { condition.unlock() }
        while index >= loaded.count, !finished { condition.wait() }
        if index < loaded.count { return loaded[index] }
        if let failure { throw failure }
        return nil
    }
}
