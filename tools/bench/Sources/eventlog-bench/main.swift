// eventlog-bench prepare DATA_DIR SMALL_EVENTS
// eventlog-bench run DATA_DIR WORK_DIR SMALL_EVENTS CHUNKS
// eventlog-bench scan STORE KEY                           the whole log read twice (forEachEvent), as `run` does
// eventlog-bench transcript STORE KEY ROUNDS               `run`'s transcript reads (200 streams of 1,000 events), ROUNDS times
// eventlog-bench ingest-concurrent WORK_DIR WRITERS BATCH SECONDS   (serve's library baseline, tools/serve/bench)
// eventlog-bench backends DATA_DIR WORK_DIR SMALL_EVENTS POSTGRES_URL
// eventlog-bench access-policy WORK_DIR SAMPLES [READS…]   finding the access policy with READS reads recorded
// eventlog-bench session-growth WORK_DIR SAMPLES [--postgres URL] [SIZE…]   one more event into sessions of SIZE
//                                                         events (on LMDB, or in databases of that PostgreSQL server)
// eventlog-bench transcript-growth WORK_DIR SAMPLES [SIZE…]   one more commit and its catch-up in sessions of SIZE segments
// eventlog-bench store-growth WORK_DIR SAMPLES [--postgres URL] [SESSIONS…]    each operation on one session or subject, and verify and
//                                                         audit check, in stores of SESSIONS sessions (1x, 10x, 100x)
// eventlog-bench session-length WORK_DIR SAMPLES [--postgres URL] [EVENTS [LENGTH…]]   the same, in stores of EVENTS events (100,000)
//                                                         in sessions of LENGTH events (10, 100, 1,000)
//
// `prepare` writes the shared workload (see Workload.swift); `run` measures EventLog on it and prints
// one JSON object per line. tools/bench/run does both and compares with the C reference.
import BenchSupport
import EventLog
import EventLogPostgres
import Foundation

let arguments = CommandLine.arguments
/// How the bench opens stores: a directory, or a PostgreSQL URL where a measurement takes one.
/// BENCH_BLOCK_BYTES sets EventLogOptions.blockBodyBytes (0: every event sealed on its own), to compare layouts in one build.
let benchOptions = {
    var options = EventLogOptions().withPostgreSQL()
    if let bytes = ProcessInfo.processInfo.environment["BENCH_BLOCK_BYTES"].flatMap(Int.init) { options.blockBodyBytes = bytes }
    return options
}()
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("eventlog-bench: \(message)\n".utf8))
    exit(64)
}

/// The measurement's stores for `arguments[2...]` (WORK_DIR, then the rest): LMDB directories under WORK_DIR, or with
/// `--postgres URL` after SAMPLES, databases of that server. Returns them and the arguments after the option.
func stores(_ usage: String) -> (Measurements, rest: [String]) {
    var rest = Array(arguments.dropFirst(4))
    var postgres: String?
    if rest.first == "--postgres" {
        guard rest.count >= 2 else { fail(usage) }
        postgres = rest[1]
        rest.removeFirst(2)
    }
    return (Measurements(work: URL(fileURLWithPath: arguments[2]), postgresServer: postgres), rest)
}

switch arguments.dropFirst().first {
case "prepare":
    guard arguments.count == 4, let count = Int(arguments[3]) else { fail("usage: prepare DATA_DIR SMALL_EVENTS") }
    let data = URL(fileURLWithPath: arguments[2])
    let events = Workload.smallEvents(count: count)
    try Workload.write(events, to: data.appendingPathComponent("small.bin"))
    let samples = events.prefix(20_000).map { ProposedEvent(type: Workload.smallType, data: $0) }
    try Data(try EventLog.trainDictionary(samples: Array(samples))).write(to: data.appendingPathComponent("dict.bin"))
    let bytes = events.reduce(0) { $0 + $1.count }
    print(#"{"scenario":"prepare","events":\#(count),"mean_event_bytes":\#(Double(bytes) / Double(count))}"#)

case "run":
    guard arguments.count == 6, let smallCount = Int(arguments[4]), let chunkCount = Int(arguments[5]) else {
        fail("usage: run DATA_DIR WORK_DIR SMALL_EVENTS CHUNKS")
    }
    let data = URL(fileURLWithPath: arguments[2])
    let work = URL(fileURLWithPath: arguments[3])
    let small = try Report.readRecords(data.appendingPathComponent("small.bin"), limit: smallCount)
    let dictionary = [UInt8](try Data(contentsOf: data.appendingPathComponent("dict.bin")))
    let chunks = try Workload.chunks(fromSpeech: data.appendingPathComponent("speech.raw"), count: chunkCount)
    let bench = Measurements(work: work)
    try await bench.batchedAppend(name: "small", records: small, type: Workload.smallType, dictionary: dictionary)
    try bench.scan(name: "small")
    try bench.openTime(name: "small")
    try bench.transcriptRead(name: "small", events: small.count)
    try await bench.batchedAppend(name: "pcm", records: chunks, type: Workload.chunkType, dictionary: dictionary)
    try bench.scan(name: "pcm")
    try await bench.groupCommit(appenders: 64, eventsEach: 400, records: small, dictionary: dictionary)
    try await bench.groupCommit(appenders: 256, eventsEach: 200, records: small, dictionary: dictionary)

case "backends":
    // The same scenarios on LMDB and on the PostgreSQL server at POSTGRES_URL, in one run.
    guard arguments.count == 6, let smallCount = Int(arguments[4]) else { fail("usage: backends DATA_DIR WORK_DIR SMALL_EVENTS POSTGRES_URL") }
    let data = URL(fileURLWithPath: arguments[2])
    let small = try Report.readRecords(data.appendingPathComponent("small.bin"), limit: smallCount)
    let dictionary = [UInt8](try Data(contentsOf: data.appendingPathComponent("dict.bin")))
    for (backend, server) in [("lmdb", nil), ("postgresql", arguments[5])] {
        Report.emit(["backend": backend])
        let bench = Measurements(work: URL(fileURLWithPath: arguments[3]), postgresServer: server)
        try await bench.batchedAppend(name: "small", records: small, type: Workload.smallType, dictionary: dictionary)
        try bench.scan(name: "small")
        // 400 each, as `run` measures: with fewer, the first round (64 streams and keys created, a new
        // database's first commit) is the whole of the slowest 1%.
        try await bench.groupCommit(appenders: 64, eventsEach: 400, records: small, dictionary: dictionary)
    }

case "ingest":
    guard arguments.count == 4 else { fail("usage: ingest NDJSON_FILE WORK_DIR") }
    try await IngestMeasurement(file: URL(fileURLWithPath: arguments[2]), work: URL(fileURLWithPath: arguments[3])).run()

case "ingest-concurrent":
    guard arguments.count == 6, let writers = Int(arguments[3]), let batch = Int(arguments[4]), let seconds = Double(arguments[5]) else {
        fail("usage: ingest-concurrent WORK_DIR WRITERS BATCH SECONDS")
    }
    try await ConcurrentIngestMeasurement(work: URL(fileURLWithPath: arguments[2]), writers: writers, batch: batch, seconds: seconds).run()

case "session-growth":
    let usage = "usage: session-growth WORK_DIR SAMPLES [--postgres URL] [SIZE…]"
    guard arguments.count >= 4, let samples = Int(arguments[3]) else { fail(usage) }
    let (measurements, rest) = stores(usage)
    let sizes = rest.isEmpty ? [0, 400, 4_000, 40_000] : rest.compactMap { Int($0) }
    try await SessionGrowthMeasurement(measurements: measurements, samples: samples).run(sizes: sizes)

case "transcript-growth":
    guard arguments.count >= 4, let samples = Int(arguments[3]) else { fail("usage: transcript-growth WORK_DIR SAMPLES [SIZE…]") }
    let sizes = arguments.count > 4 ? arguments.dropFirst(4).compactMap { Int($0) } : [1, 400, 4_000, 40_000]
    try await TranscriptGrowthMeasurement(measurements: Measurements(work: URL(fileURLWithPath: arguments[2])), samples: samples)
        .run(sizes: sizes)

case "store-growth":
    let usage = "usage: store-growth WORK_DIR SAMPLES [--postgres URL] [SESSIONS…]"
    guard arguments.count >= 4, let samples = Int(arguments[3]) else { fail(usage) }
    let (measurements, rest) = stores(usage)
    let sizes = rest.isEmpty ? [1_000, 10_000, 100_000] : rest.compactMap { Int($0) }
    try await StoreGrowthMeasurement(measurements: measurements, samples: samples).run(sizes: sizes)

case "session-length":
    let usage = "usage: session-length WORK_DIR SAMPLES [--postgres URL] [EVENTS [LENGTH…]]"
    guard arguments.count >= 4, let samples = Int(arguments[3]) else { fail(usage) }
    let (measurements, rest) = stores(usage)
    let numbers = rest.map { Int($0) }
    guard !numbers.contains(nil) else { fail(usage) }
    let events = numbers.first.map { $0! } ?? 100_000
    let lengths = numbers.count > 1 ? numbers.dropFirst().map { $0! } : [10, 100, 1_000]
    try await StoreGrowthMeasurement(measurements: measurements, samples: samples).run(events: events, lengths: lengths)

case "access-policy":
    guard arguments.count >= 4, let samples = Int(arguments[3]) else { fail("usage: access-policy WORK_DIR SAMPLES [READS…]") }
    let reads = arguments.count > 4 ? arguments[4...].compactMap { Int($0) } : [0, 1_000, 10_000, 100_000]
    try await AccessPolicyMeasurement(measurements: Measurements(work: URL(fileURLWithPath: arguments[2])), samples: samples).run(reads: reads)

case "sessions":
    guard arguments.count == 5, let sessions = Int(arguments[3]), let events = Int(arguments[4]) else {
        fail("usage: sessions WORK_DIR SESSIONS EVENTS")
    }
    try await SessionsMeasurement(work: URL(fileURLWithPath: arguments[2]), sessions: sessions, events: events).run()

case "export-store":
    guard arguments.count == 5, let sessions = Int(arguments[3]), let segments = Int(arguments[4]) else {
        fail("usage: export-store WORK SESSIONS SEGMENTS_PER_SESSION")
    }
    try await ExportMeasurement(work: URL(fileURLWithPath: arguments[2]), sessions: sessions, segments: segments).makeStore()
case "codec":
    guard arguments.count == 4 else { fail("usage: codec STORE KEY") }
    try CodecMeasurement.run(try EventLog.open(at: arguments[2], key: .keyFile(arguments[3]), options: benchOptions))
case "rebuild":
    guard arguments.count == 4 else { fail("usage: rebuild STORE KEY") }
    var result = try SessionsMeasurement.rebuildAndList(try EventLog.open(at: arguments[2], key: .keyFile(arguments[3]), options: benchOptions))
    result["scenario"] = "rebuild"
    Report.emit(result)

case "scan":
    guard arguments.count == 4 else { fail("usage: scan STORE KEY") }
    try Measurements.scan(try EventLog.open(at: arguments[2], key: .keyFile(arguments[3]), options: benchOptions), name: "store")
case "transcript":
    guard arguments.count == 5, let rounds = Int(arguments[4]) else { fail("usage: transcript STORE KEY ROUNDS") }
    let log = try EventLog.open(at: arguments[2], key: .keyFile(arguments[3]), options: benchOptions)
    let events = Int(try log.eventCount())
    for _ in 0..<rounds {
        try Scenarios.transcriptRead(name: "store", events: events) { stream in
            try log.readStream(Measurements.stream(stream)) { $0.data.count }.count
        }
    }
case "verify-tree":
    guard arguments.count == 4 else { fail("usage: verify-tree STORE KEY") }
    try ComplianceMeasurement.tree(store: arguments[2], key: arguments[3])
case "audit-check":
    guard arguments.count == 4 else { fail("usage: audit-check STORE KEY") }
    try ComplianceMeasurement.check(store: arguments[2], key: arguments[3])
case "erasure":
    guard arguments.count == 3 else { fail("usage: erasure WORK_DIR") }
    try await ComplianceMeasurement.erasure(work: URL(fileURLWithPath: arguments[2]))

case "audio":
    guard arguments.count >= 3 else { fail("usage: audio RAW_16K_MONO_FILE…") }
    for path in arguments[2...] { try AudioMeasurement(file: URL(fileURLWithPath: path)).run() }

case "long-fixture":
    guard arguments.count == 5, let minutes = Int(arguments[4]) else { fail("usage: long-fixture FIXTURES_DIR OUT_DIR MINUTES") }
    try LongFixture(fixtures: URL(fileURLWithPath: arguments[2]), minutes: minutes).write(to: URL(fileURLWithPath: arguments[3]))

default:
    fail("usage: eventlog-bench prepare|run|ingest|sessions|rebuild|audio|long-fixture …")
}
