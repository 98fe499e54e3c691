// grdb-bench run DATA_DIR WORK_DIR SMALL_EVENTS CHUNKS
//
// The workload of eventlog-bench (tools/bench/run prepares it) through GRDB.swift over Debian's SQLite,
// each record sealed as EventLog seals it. One JSON object per line, as eventlog-bench prints.
import BenchSupport
import Foundation
import GRDB

let workload = try PeerWorkload(arguments: CommandLine.arguments)
let peer = GRDBPeer(work: workload.work, sealer: Sealer(dictionary: workload.dictionary))

let sqliteVersion = try DatabaseQueue().read { try String.fetchOne($0, sql: "SELECT sqlite_version()") } ?? "?"
Report.emit(["scenario": "peer", "name": "GRDB.swift 7.10.0 over SQLite \(sqliteVersion), records sealed by the application"])
try peer.batchedAppend(name: "small", records: workload.small, type: Workload.smallType)
try peer.scan(name: "small")
try peer.transcriptRead(name: "small", events: workload.small.count)
try peer.batchedAppend(name: "pcm", records: workload.chunks, type: Workload.chunkType)
try peer.scan(name: "pcm")
try await peer.durableAppends(appenders: 64, eventsEach: 50, records: workload.small)
