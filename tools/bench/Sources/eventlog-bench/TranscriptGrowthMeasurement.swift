import BenchSupport
import EventLog
import Foundation
import Ingest
import Projections

/// What keeping the persisted transcript current costs as its session grows: a session of `holds` committed
/// segments, its views caught up, then `samples` rounds of one more commit and the catch-up that folds it
/// (what `serve` runs in the background after appends). Each alternates with the same commit and catch-up
/// for a session of one segment in the same store: their ratio is what the session's length costs. Then the
/// transcript read back whole from the view.
struct TranscriptGrowthMeasurement {
    let measurements: Measurements
    let samples: Int

    func run(sizes: [Int]) async throws {
        for holds in sizes {
            let path = try measurements.freshStorePath("transcript-growth")
            let log = try EventLog.create(at: path, key: .keyFile(measurements.keyPath), options: benchOptions)
            let ingest = SessionIngest(log: log)
            let (long, short) = (UUID(), UUID())
            var lines = [Self.started(long), Self.started(short), GrowthLines.commit(0, in: short)]
            for number in 0..<holds {
                lines.append(GrowthLines.commit(number, in: long))
                if lines.count == 1000 {
                    _ = try await ingest.ingest(Data(lines.joined(separator: "\n").utf8))
                    lines.removeAll()
                }
            }
            if !lines.isEmpty { _ = try await ingest.ingest(Data(lines.joined(separator: "\n").utf8)) }
            let runner = ProjectionRunner(log: log)
            try runner.catchUp()
            var longCatchUps: [Double] = [], shortCatchUps: [Double] = []
            for sample in 0..<samples {
                _ = try await ingest.ingest(Data(GrowthLines.commit(holds + sample, in: long).utf8))
                longCatchUps.append(try Report.time { try runner.catchUp() })
                _ = try await ingest.ingest(Data(GrowthLines.commit(1 + sample, in: short).utf8))
                shortCatchUps.append(try Report.time { try runner.catchUp() })
            }
            // Reading the transcript back from the view, as `transcript` and `GET …/transcript` do (a fresh runner:
            // nothing cached), which must grow with the transcript.
            var reads: [Double] = []
            var segments = 0
            for _ in 0..<max(5, samples / 3) {
                reads.append(try Report.time { segments = try ProjectionRunner(log: log).transcript(of: long)?.segments.count ?? 0 })
            }
            try log.close()
            Report.emit(["scenario": "transcript-growth", "holds": holds, "segments_after": segments,
                         "catch_up": Report.latencyFields(longCatchUps), "catch_up_one_segment_session": Report.latencyFields(shortCatchUps),
                         "transcript_read": Report.latencyFields(reads)])
        }
    }

    private static func started(_ session: UUID) -> String {
        #"{"type":"session.started","session":"\#(session.uuidString.lowercased())","at":"2026-11-21T10:00:00Z","subject":"growth","locale":"en"}"#
    }
}
