import EventLog
import Foundation
import SessionLog
import SessionModel

/// A session's transcript in the `transcript-parts` view: one row per block of 64 committed segments,
/// key `session id (16) ‖ 0x00 ‖ block u32` (block `b` holds the segments committed `64b ..< 64b + 64`th),
/// and one row of its partials, key `session id ‖ 0x01` (absent while it has none). Each row is a
/// `TranscriptRow` holding its part alone, so a session's rows concatenated in key order are its whole
/// `TranscriptRow` (protobuf concatenates repeated fields).
///
/// A catch-up writes only the parts that changed: the blocks of a session's new or corrected segments,
/// its partials. One row for the whole transcript had to be encoded and sealed again at every catch-up
/// that touched the session, a cost that grew with the session (docs/FORMAT.md §8); a row per segment
/// made reading a long transcript back one decryption per segment.
enum TranscriptParts {
    /// Committed segments per row.
    static let segmentsPerBlock = 64

    static func blockKey(_ session: UUID, _ block: Int) -> [UInt8] {
        session.wireBytes + [0] + UInt32(block).bigEndianBytes
    }

    static func partialsKey(_ session: UUID) -> [UInt8] {
        session.wireBytes + [1]
    }

    /// The keys whose rows say whether `session` has a stored transcript at all: a transcript with rows has its first
    /// block (written with its first committed segment, removed only with all its rows) or its partials.
    static func presenceKeys(_ session: UUID) -> [[UInt8]] {
        [blockKey(session, 0), partialsKey(session)]
    }

    /// The stored transcript of `session`, nil when it has no rows.
    static func read(_ session: UUID, from view: ViewReader) throws -> TranscriptView? {
        var row: [UInt8] = []
        var found = false
        try view.forEachRow(startingWith: session.wireBytes) { _, value in
            found = true
            row += value
        }
        return found ? try TranscriptView(session: session, row: row) : nil
    }

    /// Stores the parts of `transcript` that `changes` names, sealed with the session's data key so that
    /// erasing the session leaves no readable copy of them; a session erased since its events were read
    /// keeps no rows.
    static func write(_ transcript: TranscriptView, changes: TranscriptChanges, into view: ViewWriter) throws {
        let session = transcript.session
        let blocks = Set(changes.segments.map { $0 / segmentsPerBlock })
        var rows = blocks.sorted().map { block in
            let first = block * segmentsPerBlock
            return (key: blockKey(session, block),
                    value: transcript.segmentsRowBytes(first..<min(first + segmentsPerBlock, transcript.segments.count)))
        }
        if changes.partials {
            if transcript.partials.isEmpty {
                try view.remove(partialsKey(session))
            } else {
                rows.append((partialsKey(session), transcript.partialsRowBytes))
            }
        }
        do {
            try view.put(rows, sealedWithKeyOf: SessionStreams.session(session))
        } catch let error as EventLogError where error.code == .keyDestroyed {
            try remove(session, from: view)
        }
    }

    /// Removes every row of `session`.
    static func remove(_ session: UUID, from view: ViewWriter) throws {
        try view.removeRows(startingWith: session.wireBytes)
    }
}

/// The parts of a transcript changed since it was last stored.
struct TranscriptChanges: Sendable {
    /// The commit indexes of the segments added or corrected.
    var segments: Set<Int> = []
    /// Whether its partials changed.
    var partials = false

    /// Every part of `transcript`, for a transcript none of whose rows are stored.
    static func all(of transcript: TranscriptView) -> TranscriptChanges {
        TranscriptChanges(segments: Set(transcript.segments.indices), partials: true)
    }

    /// Folds `event` into `transcript`, noting what it changed.
    mutating func apply(_ event: SessionEvent, to transcript: inout TranscriptView) {
        let segmentsBefore = transcript.segments.count
        transcript.apply(event)
        switch event.payload {
        case .transcriptPartial:
            partials = true
        case .transcriptCommitted:
            if transcript.segments.count > segmentsBefore {
                segments.insert(segmentsBefore)
                partials = true
            }
        case .transcriptCorrected(let correction):
            if let index = transcript.committed[correction.segment] { segments.insert(index) }
        default:
            break
        }
    }
}
