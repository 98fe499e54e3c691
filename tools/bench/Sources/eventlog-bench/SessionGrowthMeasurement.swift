import BenchSupport
import EventLog
import Foundation
import Ingest
import SessionLog

/// What one more event costs as its session grows: a session filled with `holds` events, then `samples`
/// single-event appends to it, through the engine (`append(deduplicate:)`, the idempotent resend check)
/// and through the ingest (one NDJSON line, as `POST /v1/events` sends it). Each alternates with the same
/// append to a stream and a session that hold one event, in the same store: the ratio of the two is what
/// the session's length costs, apart from what the store's size does (a deeper tree, more pages to sync).
/// Sizes 0, 1x, 10x and 100x in one run.
struct SessionGrowthMeasurement {
    /// Where the stores are: LMDB directories, or databases of a PostgreSQL server.
    let measurements: Measurements
    let samples: Int

    func run(sizes: [Int]) async throws {
        for holds in sizes {
            let path = try measurements.freshStorePath("growth")
            let log = try EventLog.create(at: path, key: .keyFile(measurements.keyPath), options: benchOptions)
            let session = UUID()
            let ingest = SessionIngest(log: log)
            var lines = [Self.line(["type": "session.started", "session": session.uuidString.lowercased(), "at": Self.time(0),
                                    "subject": "growth", "locale": "en"])]
            for number in 1..<max(holds, 1) {
                lines.append(partial(number, in: session))
                if lines.count == 1000 {
                    _ = try await ingest.ingest(Data(lines.joined(separator: "\n").utf8))
                    lines.removeAll()
                }
            }
            if !lines.isEmpty { _ = try await ingest.ingest(Data(lines.joined(separator: "\n").utf8)) }

            // The engine's own stream of the same length, of events no session codec reads.
            let stream = StreamID()
            for start in stride(from: 0, to: holds, by: 1000) {
                let batch = (start..<min(start + 1000, holds)).map { Self.note($0) }
                try await log.append(batch, to: stream, deduplicate: true)
            }
            let smallStream = StreamID()
            let smallSession = UUID()
            try await log.append([Self.note(0)], to: smallStream)
            _ = try await ingest.ingest(Data(Self.line(["type": "session.started", "session": smallSession.uuidString.lowercased(),
                                                        "at": Self.time(0), "subject": "growth", "locale": "en"]).utf8))
            var engine: [Double] = [], engineSmall: [Double] = []
            var ingested: [Double] = [], ingestedSmall: [Double] = []
            for sample in 0..<samples {
                let one = Self.note(holds + sample)
                engine.append(try await Report.time { try await log.append([one], to: stream, deduplicate: true) })
                let small = Self.note(1 + sample)
                engineSmall.append(try await Report.time { try await log.append([small], to: smallStream, deduplicate: true) })
                let line = Data(partial(holds + sample, in: session).utf8)
                ingested.append(try await Report.time { _ = try await ingest.ingest(line) })
                let smallLine = Data(partial(1 + sample, in: smallSession).utf8)
                ingestedSmall.append(try await Report.time { _ = try await ingest.ingest(smallLine) })
            }
            let versions = try [stream, SessionStreams.session(session)].map { try log.streamMetadata($0)?.version ?? 0 }
            try log.close()
            Report.emit(["scenario": "session-growth", "backend": measurements.postgresServer == nil ? "lmdb" : "postgresql", "holds": holds, "versions_after": versions,
                         "engine_append": Report.latencyFields(engine), "engine_append_small_stream": Report.latencyFields(engineSmall),
                         "ingest_line": Report.latencyFields(ingested), "ingest_line_small_session": Report.latencyFields(ingestedSmall)])
        }
    }

    private static func note(_ number: Int) -> ProposedEvent {
        ProposedEvent(type: "note", data: Array("an event of about the size of a transcript partial, number \(number)".utf8))
    }

    private func partial(_ number: Int, in session: UUID) -> String {
        Self.line(["type": "transcript.partial", "session": session.uuidString.lowercased(), "at": Self.time(number),
                   "segment": "s\(number)", "revision": 1, "text": "words of partial number \(number)",
                   "start_ms": number * 100, "end_ms": number * 100 + 90])
    }

    private static func line(_ fields: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]), as: UTF8.self)
    }

    /// 2026-11-21T10:00:00Z plus `number` tenths of a second, as the ingest's `at` takes it.
    private static func time(_ number: Int) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: 1_795_255_200 + Double(number) / 10))
    }
}
