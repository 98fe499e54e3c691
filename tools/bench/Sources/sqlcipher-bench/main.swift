// sqlcipher-bench run DATA_DIR WORK_DIR SMALL_EVENTS CHUNKS
//
// The workload of eventlog-bench (tools/bench/run prepares it) in SQLCipher through its C API: pages
// encrypted by the database, events stored as plain rows. One JSON object per line.
import BenchSupport
import Foundation

let workload = try PeerWorkload(arguments: CommandLine.arguments)
let peer = SQLCipherPeer(work: workload.work)

let probe = try Connection(path: ":memory:")
let versions = (try probe.text("SELECT sqlite_version()") ?? "?", try probe.text("PRAGMA cipher_version") ?? "?")
Report.emit(["scenario": "peer", "name": "SQLCipher \(versions.1) (SQLite \(versions.0)), pages encrypted by the database"])
try await workload.run(peer)
