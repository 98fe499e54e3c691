import Foundation

/// The scenarios every store runs, timed and reported the same way: each side supplies only the work.
public enum Scenarios {
    /// Times `body`, which appends `records` to the store `name` and makes them durable, and reports it.
    public static func append(name: String, records: [[UInt8]], bytesOnDisk: () -> Int, _ body: () throws -> Void) rethrows {
        let elapsed = try Report.time(body)
        Report.emit(["scenario": "append-\(name)", "events": records.count, "seconds": elapsed,
                     "per_second": Double(records.count) / elapsed, "raw_bytes": records.reduce(0) { $0 + $1.count },
                     "bytes_on_disk": bytesOnDisk()])
    }

    /// Times `scan`, which reads and opens every event of the store `name` and returns how many events
    /// and payload bytes it saw, twice: first, then warm.
    public static func scan(name: String, _ scan: () throws -> (events: Int, bytes: Int)) rethrows {
        for pass in ["first", "warm"] {
            var seen = (events: 0, bytes: 0)
            let elapsed = try Report.time { seen = try scan() }
            Report.emit(["scenario": "scan-\(name)", "pass": pass, "events": seen.events, "payload_bytes": seen.bytes,
                         "seconds": elapsed, "per_second": Double(seen.events) / elapsed])
        }
    }

    /// A session's transcript read, the query users run most: `readSession` reads and opens every event
    /// of one stream (1,000) and returns how many; sessions per second and the latency of one.
    public static func transcriptRead(name: String, events: Int, _ readSession: (_ stream: [UInt8]) throws -> Int) rethrows {
        let sample = Workload.transcriptSample(batches: events / 1000, count: 200)
        var latencies: [Double] = []
        var read = 0
        let elapsed = try Report.time {
            for batch in sample {
                let stream = Workload.streamBytes(firstPosition: batch * 1000)
                latencies.append(try Report.time { read += try readSession(stream) })
            }
        }
        Report.emit(["scenario": "transcript-\(name)", "sessions": sample.count, "events": read, "seconds": elapsed,
                     "per_second": Double(sample.count) / elapsed].merging(Report.latencyFields(latencies)) { $1 })
    }

    /// `appenders` tasks, each calling `append(appender, index, record)` `eventsEach` times in turn, one
    /// event at a time, awaiting durability; reports the rate and the acknowledgement latencies.
    public static func durableAppends(appenders: Int, eventsEach: Int, records: [[UInt8]],
                                      _ append: @escaping @Sendable (_ appender: Int, _ index: Int, _ record: [UInt8]) async throws -> Void)
        async throws {
        let clock = ContinuousClock()
        let started = clock.now
        let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
            for appender in 0..<appenders {
                group.addTask {
                    var latencies: [Double] = []
                    latencies.reserveCapacity(eventsEach)
                    for index in 0..<eventsEach {
                        let record = records[(appender * eventsEach + index) % records.count]
                        let before = clock.now
                        try await append(appender, index, record)
                        latencies.append(Report.seconds(clock.now - before))
                    }
                    return latencies
                }
            }
            return try await group.reduce(into: [Double]()) { $0 += $1 }
        }
        reportDurable(appenders: appenders, latencies: latencies, seconds: Report.seconds(clock.now - started))
    }

    /// Reports `appenders` durable appenders that acknowledged events after `latencies` (seconds each)
    /// in `seconds` in all.
    public static func reportDurable(appenders: Int, latencies: [Double], seconds: Double) {
        Report.emit(["scenario": "group-commit", "appenders": appenders, "events": latencies.count, "seconds": seconds,
                     "per_second": Double(latencies.count) / seconds].merging(Report.latencyFields(latencies)) { $1 })
    }
}

/// What a peer's executable is given: `TOOL run DATA_DIR WORK_DIR SMALL_EVENTS CHUNKS`, the workload
/// tools/bench/run prepared with eventlog-bench.
public struct PeerWorkload: Sendable {
    public let work: URL
    public let small: [[UInt8]]
    public let chunks: [[UInt8]]
    public let dictionary: [UInt8]

    /// Reads the workload the arguments name, or exits 64 with the usage.
    public init(arguments: [String]) throws {
        guard arguments.count == 6, arguments[1] == "run", let smallCount = Int(arguments[4]), let chunkCount = Int(arguments[5]) else {
            let tool = URL(fileURLWithPath: arguments.first ?? "peer").lastPathComponent
            FileHandle.standardError.write(Data("usage: \(tool) run DATA_DIR WORK_DIR SMALL_EVENTS CHUNKS\n".utf8))
            exit(64)
        }
        let data = URL(fileURLWithPath: arguments[2])
        work = URL(fileURLWithPath: arguments[3])
        small = try Report.readRecords(data.appendingPathComponent("small.bin"), limit: smallCount)
        chunks = try Workload.chunks(fromSpeech: data.appendingPathComponent("speech.raw"), count: chunkCount)
        dictionary = [UInt8](try Data(contentsOf: data.appendingPathComponent("dict.bin")))
    }
}

/// A store other than EventLog that runs the workload: each method runs one scenario through `Scenarios`.
public protocol PeerStore {
    func batchedAppend(name: String, records: [[UInt8]], type: String) throws
    func scan(name: String) throws
    func transcriptRead(name: String, events: Int) throws
    func durableAppends(appenders: Int, eventsEach: Int, records: [[UInt8]]) async throws
}

extension PeerWorkload {
    /// Every scenario, in eventlog-bench's order. The durable appenders append 50 events each (EventLog's
    /// 400): without group commit a peer's 25,600 syncs would take most of a minute.
    public func run(_ peer: some PeerStore) async throws {
        try peer.batchedAppend(name: "small", records: small, type: Workload.smallType)
        try peer.scan(name: "small")
        try peer.transcriptRead(name: "small", events: small.count)
        try peer.batchedAppend(name: "pcm", records: chunks, type: Workload.chunkType)
        try peer.scan(name: "pcm")
        try await peer.durableAppends(appenders: 64, eventsEach: 50, records: small)
    }
}
