// grdb-bench run DATA_DIR WORK_DIR SMALL_EVENTS CHUNKS
//
// The workload of eventlog-bench (tools/bench/run prepares it) through GRDB.swift over Debian's SQLite,
// each record sealed as EventLog seals it. One JSON object per line, as eventlog-bench prints.
import BenchSupport
import Foundation
import GRDB

let arguments = CommandLine.arguments
guard arguments.count == 6, arguments[1] == "run", let smallCount = Int(arguments[4]), let chunkCount = Int(arguments[5]) else {
    FileHandle.standardError.write(Data("usage: grdb-bench run DATA_DIR WORK_DIR SMALL_EVENTS CHUNKS\n".utf8))
    exit(64)
}
let data = URL(fileURLWithPath: arguments[2])
let work = URL(fileURLWithPath: arguments[3])
let small = try Report.readRecords(data.appendingPathComponent("small.bin"), limit: smallCount)
let chunks = try Workload.chunks(fromSpeech: data.appendingPathComponent("speech.raw"), count: chunkCount)
let dictionary = [UInt8](try Data(contentsOf: data.appendingPathComponent("dict.bin")))
let peer = GRDBPeer(work: work, sealer: Sealer(dictionary: dictionary))

let sqliteVersion = try DatabaseQueue().read { try String.fetchOne($0, sql: "SELECT sqlite_version()") } ?? "?"
Report.emit(["scenario": "peer", "name": "GRDB.swift 7.10.0 over SQLite \(sqliteVersion), records sealed by the application"])
try peer.batchedAppend(name: "small", records: small, type: Workload.smallType)
try peer.scan(name: "small")
try peer.transcriptRead(name: "small", events: small.count)
try peer.batchedAppend(name: "pcm", records: chunks, type: Workload.chunkType)
try peer.scan(name: "pcm")
try await peer.durableAppends(appenders: 64, eventsEach: 50, records: small)
