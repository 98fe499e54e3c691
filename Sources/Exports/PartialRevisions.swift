import EventLog
import Foundation
import Migrations
import SessionLog
import SessionModel

/// Every partial revision of a session's segments, in the order recorded: what `--partials` adds to a
/// CSV export (the persisted transcript keeps only the latest partial of each segment).
enum PartialRevisions {
    static let batchSize = 4096

    static func load(_ session: UUID, from log: EventLog) throws -> [TranscriptPartial] {
        let stream = SessionStreams.session(session)
        let codec = SessionMigrations.codec
        let wanted = EventType.transcriptPartial.rawValue
        var partials: [TranscriptPartial] = []
        let total = try log.streamMetadata(stream)?.version ?? 0
        var next: UInt64 = 0
        while next < total {
            // Audio and everything else is authenticated by the read but not decoded; partials that
            // retention discarded (their key destroyed) are gone.
            let batch = try log.readStream(stream, from: next, maxCount: batchSize, skippingErased: true) { recorded -> TranscriptPartial? in
                guard recorded.type == wanted, case .transcriptPartial(let partial) = try codec.decode(recorded).event.payload
                else { return nil }
                return partial
            }
            partials += batch.compactMap { $0 }
            next += UInt64(batchSize)
        }
        return partials
    }
}
