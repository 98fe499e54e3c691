// sqlcipher-bench run DATA_DIR WORK_DIR SMALL_EVENTS CHUNKS
//
// The workload of eventlog-bench (tools/bench/run prepares it) in SQLCipher through its C API: pages
// encrypted by the database, events stored as plain rows. One JSON object per line.
import BenchSupport
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 6, arguments[1] == "run", let smallCount = Int(arguments[4]), let chunkCount = Int(arguments[5]) else {
    FileHandle.standardError.write(Data("usage: sqlcipher-bench run DATA_DIR WORK_DIR SMALL_EVENTS CHUNKS\n".utf8))
    exit(64)
}
let data = URL(fileURLWithPath: arguments[2])
let work = URL(fileURLWithPath: arguments[3])
let small = try Report.readRecords(data.appendingPathComponent("small.bin"), limit: smallCount)
let chunks = try Workload.chunks(fromSpeech: data.appendingPathComponent("speech.raw"), count: chunkCount)
let peer = SQLCipherPeer(work: work)

let probe = try Connection(path: ":memory:")
let versions = (try probe.text("SELECT sqlite_version()") ?? "?", try probe.text("PRAGMA cipher_version") ?? "?")
Report.emit(["scenario": "peer", "name": "SQLCipher \(versions.1) (SQLite \(versions.0)), pages encrypted by the database"])
try peer.batchedAppend(name: "small", records: small, type: Workload.smallType)
try peer.scan(name: "small")
try peer.transcriptRead(name: "small", events: small.count)
try peer.batchedAppend(name: "pcm", records: chunks, type: Workload.chunkType)
try peer.scan(name: "pcm")
try peer.durableAppends(appenders: 64, eventsEach: 50, records: small)
