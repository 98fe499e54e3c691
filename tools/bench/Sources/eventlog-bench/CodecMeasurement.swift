import EventLog
import Foundation
import Migrations
import SessionLog
import SessionModel
import SwiftProtobuf

/// The payload codec on the rebuild path's payloads: every event of a store decoded once with the
/// package's codec (whichever the build has) and once with swift-protobuf 1.39's types generated from
/// docs/session-events.proto (Generated/, `protoc --swift_out`), on one thread, in the same process.
enum CodecMeasurement {
    static func run(_ log: EventLog, rounds: Int = 3) throws {
        var events: [RecordedEvent] = []
        try log.forEachEvent { events.append($0) }
        let codec = SessionMigrations.codec
        for round in 1...rounds {
            let ours = try time { for event in events { _ = try codec.decode(event) } }
            let generated = try time { for event in events { try decodeGenerated(event) } }
            Measurements.emit(["scenario": "codec", "round": round, "events": events.count,
                               "ours_per_second": Double(events.count) / ours,
                               "swift_protobuf_per_second": Double(events.count) / generated])
        }
    }

    private static func time(_ body: () throws -> Void) throws -> Double {
        let start = ContinuousClock.now
        try body()
        return Measurements.seconds(ContinuousClock.now - start)
    }

    private static func decodeGenerated(_ event: RecordedEvent) throws {
        let bytes = event.data
        switch event.type {
        case "session.started": _ = try Sessionstore_V1_SessionStarted(serializedBytes: bytes)
        case "session.paused": _ = try Sessionstore_V1_SessionPaused(serializedBytes: bytes)
        case "session.resumed": _ = try Sessionstore_V1_SessionResumed(serializedBytes: bytes)
        case "session.ended": _ = try Sessionstore_V1_SessionEnded(serializedBytes: bytes)
        case "consent.granted", "consent.revoked": _ = try Sessionstore_V1_ConsentChange(serializedBytes: bytes)
        case "recording.started": _ = try Sessionstore_V1_RecordingStarted(serializedBytes: bytes)
        case "recording.chunk": _ = try Sessionstore_V1_RecordingChunk(serializedBytes: bytes)
        case "recording.stopped": _ = try Sessionstore_V1_RecordingStopped(serializedBytes: bytes)
        case "transcript.partial": _ = try Sessionstore_V1_TranscriptPartial(serializedBytes: bytes)
        case "transcript.committed": _ = try Sessionstore_V1_TranscriptCommitted(serializedBytes: bytes)
        case "transcript.corrected": _ = try Sessionstore_V1_TranscriptCorrected(serializedBytes: bytes)
        default: throw SwiftProtobuf.BinaryDecodingError.malformedProtobuf
        }
    }
}
