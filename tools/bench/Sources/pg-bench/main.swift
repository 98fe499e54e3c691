// pg-bench URL DATA_DIR EVENTS
//
// Which PostgreSQL client should the PostgreSQL backend use (issue 13)? The same sealed records
// (EventLog's envelope, ~175 bytes each) go into PostgreSQL through libpq and through postgres-nio,
// in transactions of 1,000 rows, by each client's bulk paths, and are read back whole by each client's
// row paths. One JSON object per line. tools/bench/postgres-clients starts a server and runs this.
import BenchSealing
import BenchSupport
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: pg-bench URL DATA_DIR EVENTS\n".utf8))
    exit(64)
}
let url = arguments[1]
let data = URL(fileURLWithPath: arguments[2])
let events = try Report.readRecords(data.appendingPathComponent("small.bin"), limit: count)
let sealer = Sealer(dictionary: [UInt8](try Data(contentsOf: data.appendingPathComponent("dict.bin"))))
var records: [[UInt8]] = []
records.reserveCapacity(events.count)
for first in stride(from: 0, to: events.count, by: 1000) {
    let base = Sealer.randomBase()
    let stream = Workload.streamBytes(firstPosition: first)
    for position in first..<min(events.count, first + 1000) {
        records.append([UInt8](sealer.seal(position: Int64(position), base: base, stream: stream, version: position - first,
                                           type: Workload.smallType, data: events[position])))
    }
}

let measurement = ClientMeasurement(url: url, records: records)
try await measurement.run()
