import Audio
import EventLog
import EventRows
import Foundation
import Migrations
import SessionAudio
import SessionLog
import SessionModel

extension EventRow {
    /// The row of `recorded`, with a recording chunk's samples decoded when `withAudio`.
    public init(recorded: RecordedSessionEvent, withAudio: Bool) throws(AudioError) {
        var pcm: [UInt8]?
        if withAudio, case .recordingChunk(let chunk) = recorded.event.payload { pcm = try chunk.pcm() }
        self.init(recorded: recorded, pcm: pcm)
    }
}

/// A session's events as `sessionstore events` prints them.
public enum SessionEventRows {
    /// Events read, decoded and handed over at a time: memory stays flat for a session of any length.
    public static let batchSize = 4096

    /// The rows of `session`'s events in its order, a batch at a time: each event is decoded, its chunk's
    /// samples decoded with `withAudio`, and its row made `T` by `render`, on the log's reading threads;
    /// `body` takes each batch in turn. Events whose keys retention destroyed are left out.
    public static func forEachBatch<T>(of session: UUID, in log: EventLog, withAudio: Bool,
                                       render: @escaping @Sendable (EventRow) -> T, _ body: ([T]) throws -> Void) throws {
        let stream = SessionStreams.session(session)
        let codec = SessionMigrations.codec
        let total = try log.streamMetadata(stream)?.version ?? 0
        var next: UInt64 = 0
        while next < total {
            let batch = try log.readStream(stream, from: next, maxCount: batchSize, skippingErased: true) { recorded in
                render(try EventRow(recorded: try codec.decode(recorded), withAudio: withAudio))
            }
            try body(batch)
            next += UInt64(batchSize)
        }
    }
}

extension SessionEventRows {
    /// Every session's events from log position `start` on, then each as it is committed, as rows (with
    /// chunks' samples when `withAudio`): the store's own events are left out, and so is a consent
    /// event's copy in its subject's trail (the session's own is sent). Ends when the task is cancelled.
    public static func tail(from start: UInt64, in log: EventLog, withAudio: Bool) -> some AsyncSequence<EventRow, any Error> {
        let codec = SessionMigrations.codec
        return log.subscribe(from: start, skippingErased: true).compactMap { recorded -> EventRow? in
            guard !SessionStreams.holdsStoreEvents(recorded.stream.uuid) else { return nil }
            let event = try codec.decode(recorded)
            return event.isCopy ? nil : try EventRow(recorded: event, withAudio: withAudio)
        }
    }
}
