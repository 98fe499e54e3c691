import EventLog
import Foundation
import SessionLog

/// The scenarios, each printing one JSON line of results.
struct Measurements {
    let work: URL
    var keyPath: String { work.appendingPathComponent("bench.key").path }

    init(work: URL) {
        self.work = work
        try? FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: keyPath) { try! MasterKeyFile.create(at: keyPath) }
    }

    func storePath(_ name: String) -> String { work.appendingPathComponent("swift-\(name).store").path }

    /// A new store `name` (any old one removed) for a sessions workload: commits not synced, a 4 GiB map,
    /// and the session dictionary `init` installs unless BENCH_NO_DICTIONARY is set.
    func freshSessionStore(_ name: String) throws -> EventLog {
        let path = storePath(name)
        try? FileManager.default.removeItem(atPath: path)
        var options = EventLogOptions()
        options.durable = false
        options.initialMapSize = 4 << 30
        let log = try EventLog.create(at: path, key: .keyFile(keyPath), options: options)
        if ProcessInfo.processInfo.environment["BENCH_NO_DICTIONARY"] == nil { try SessionDictionary.install(in: log) }
        return log
    }

    static func readRecords(_ url: URL, limit: Int) throws -> [[UInt8]] {
        let data = [UInt8](try Data(contentsOf: url))
        var records: [[UInt8]] = []
        var offset = 0
        while offset + 4 <= data.count, records.count < limit {
            let length = Int(UInt32(data[offset]) | UInt32(data[offset + 1]) << 8 | UInt32(data[offset + 2]) << 16 | UInt32(data[offset + 3]) << 24)
            records.append(Array(data[(offset + 4)..<(offset + 4 + length)]))
            offset += 4 + length
        }
        return records
    }

    static func emit(_ fields: [String: Any]) {
        let json = try! JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
        FileHandle.standardOutput.write(json + Data("\n".utf8))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// 1,000 events per append and per transaction, no sync per transaction, two appends in flight,
    /// streams of 1,000 events each; the final sync is timed too.
    func batchedAppend(name: String, records: [[UInt8]], type: String, dictionary: [UInt8]) async throws {
        let path = storePath(name)
        try? FileManager.default.removeItem(atPath: path)
        var options = EventLogOptions()
        options.durable = false
        options.initialMapSize = 8 << 30
        options.maximumBatchEvents = 1000
        let log = try EventLog.create(at: path, key: .keyFile(keyPath), options: options)
        try log.installDictionary(dictionary)
        let batches = stride(from: 0, to: records.count, by: 1000).map { start in
            records[start..<min(records.count, start + 1000)].map { ProposedEvent(type: type, data: $0) }
        }
        let streams = (0..<batches.count).map { _ in StreamID() }
        let clock = ContinuousClock()
        let started = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, batch) in batches.enumerated() {
                if index >= 2 { try await group.next() }
                group.addTask { try await log.append(batch, to: streams[index], expectedVersion: .noStream) }
            }
            try await group.waitForAll()
        }
        try log.close()
        let elapsed = Self.seconds(clock.now - started)
        let statistics = try log.statistics()
        let rawBytes = records.reduce(0) { $0 + $1.count }
        Self.emit(["scenario": "append-\(name)", "events": records.count, "seconds": elapsed,
                   "per_second": Double(records.count) / elapsed, "raw_bytes": rawBytes,
                   "bytes_on_disk": statistics.bytesOnDisk, "record_bytes": statistics.recordBytes,
                   "compression_ratio": statistics.compressionRatio])
    }

    /// Reads the whole log (leaf check, decrypt, decompress) twice: cold-ish, then warm.
    func scan(name: String) throws {
        let log = try EventLog.open(at: storePath(name), key: .keyFile(keyPath))
        for pass in ["first", "warm"] {
            let clock = ContinuousClock()
            let started = clock.now
            var count = 0
            var bytes = 0
            try log.forEachEvent { event in
                count += 1
                bytes += event.data.count
            }
            let elapsed = Self.seconds(clock.now - started)
            Self.emit(["scenario": "scan-\(name)", "pass": pass, "events": count, "payload_bytes": bytes,
                       "seconds": elapsed, "per_second": Double(count) / elapsed])
        }
    }

    /// Opening the store: median and worst of 21 opens, each a new process-independent EventLog.
    func openTime(name: String) throws {
        var samples: [Double] = []
        for _ in 0..<21 {
            let clock = ContinuousClock()
            let started = clock.now
            let log = try EventLog.open(at: storePath(name), key: .keyFile(keyPath))
            samples.append(Self.seconds(clock.now - started))
            try log.close()
        }
        samples.sort()
        Self.emit(["scenario": "open-\(name)", "events": try EventLog.open(at: storePath(name), key: .keyFile(keyPath)).eventCount(),
                   "median_ms": samples[samples.count / 2] * 1000, "max_ms": samples.last! * 1000])
    }

    /// `appenders` tasks, each appending one event at a time to its own stream and awaiting durability.
    func groupCommit(appenders: Int, eventsEach: Int, records: [[UInt8]], dictionary: [UInt8]) async throws {
        let path = storePath("group-\(appenders)")
        try? FileManager.default.removeItem(atPath: path)
        let log = try EventLog.create(at: path, key: .keyFile(keyPath))
        try log.installDictionary(dictionary)
        let clock = ContinuousClock()
        let started = clock.now
        let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
            for appender in 0..<appenders {
                group.addTask {
                    let stream = StreamID()
                    var latencies: [Double] = []
                    latencies.reserveCapacity(eventsEach)
                    for index in 0..<eventsEach {
                        let record = records[(appender * eventsEach + index) % records.count]
                        let before = clock.now
                        try await log.append([ProposedEvent(type: Workload.smallType, data: record)], to: stream)
                        latencies.append(Self.seconds(clock.now - before))
                    }
                    return latencies
                }
            }
            return try await group.reduce(into: [Double]()) { $0 += $1 }
        }.sorted()
        let elapsed = Self.seconds(clock.now - started)
        func percentile(_ p: Double) -> Double { latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] * 1000 }
        Self.emit(["scenario": "group-commit", "appenders": appenders, "events": latencies.count, "seconds": elapsed,
                   "per_second": Double(latencies.count) / elapsed, "p50_ms": percentile(0.5), "p99_ms": percentile(0.99),
                   "max_ms": latencies.last! * 1000])
    }
}
