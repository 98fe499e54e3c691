import Audio
import EventLog
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
