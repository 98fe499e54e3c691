import BenchSupport
import EventLog
import Foundation
import Migrations
import SessionLog
import SessionModel

/// The payload codec on the rebuild path's payloads: every event of a store decrypted once, then
/// decoded with the package's codec on one thread (docs/history/performance.md, "The payload codec").
enum CodecMeasurement {
    static func run(_ log: EventLog, rounds: Int = 3) throws {
        var events: [RecordedEvent] = []
        try log.forEachEvent { events.append($0) }
        let codec = SessionMigrations.codec
        for round in 1...rounds {
            let start = ContinuousClock.now
            for event in events { _ = try codec.decode(event) }
            let seconds = Report.seconds(ContinuousClock.now - start)
            Report.emit(["scenario": "codec", "round": round, "events": events.count,
                               "per_second": Double(events.count) / seconds])
        }
    }
}
