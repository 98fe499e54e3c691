// grdb-bench run DATA_DIR WORK_DIR SMALL_EVENTS CHUNKS
//
// The workload of eventlog-bench (tools/bench/run prepares it) through GRDB.swift over Debian's SQLite,
// each record sealed as EventLog seals it. One JSON object per line, as eventlog-bench prints.
import BenchSealing
import BenchSupport
import Foundation
import GRDB

let workload = try PeerWorkload(arguments: CommandLine.arguments)
let peer = GRDBPeer(work: workload.work, sealer: Sealer(dictionary: workload.dictionary))

let sqliteVersion = try DatabaseQueue().read { try String.fetchOne($0, sql: "SELECT sqlite_version()") } ?? "?"
Report.emit(["scenario": "peer", "name": "GRDB.swift 7.10.0 over SQLite \(sqliteVersion), records sealed by the application"])
try await workload.run(peer)
