import BenchSupport
import EventLog
import Foundation
import SessionLog

/// The scenarios, each printing one JSON line of results.
struct Measurements {
    let work: URL
    var keyPath: String { work.appendingPathComponent("bench.key").path }

    /// A PostgreSQL server (its URL, of any database) to keep the stores in instead of LMDB directories.
    let postgresServer: String?

    init(work: URL, postgresServer: String? = nil) {
        self.work = work
        self.postgresServer = postgresServer
        try? FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: keyPath) { try! MasterKeyFile.create(at: keyPath) }
    }

    func storePath(_ name: String) -> String {
        guard let server = postgresServer else { return work.appendingPathComponent("swift-\(name).store").path }
        return String(server[..<server.lastIndex(of: "/")!]) + "/bench_" + name.replacingOccurrences(of: "-", with: "_")
    }

    /// `storePath(name)` with no store there: the directory removed, or the database dropped and made again.
    func freshStorePath(_ name: String) throws -> String {
        let path = storePath(name)
        guard let server = postgresServer else {
            try? FileManager.default.removeItem(atPath: path)
            return path
        }
        let database = String(path[path.index(after: path.lastIndex(of: "/")!)...])
        let psql = Process()
        psql.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        psql.arguments = ["psql", server, "-qv", "ON_ERROR_STOP=1", "-c", "DROP DATABASE IF EXISTS \(database)", "-c", "CREATE DATABASE \(database)"]
        try psql.run()
        psql.waitUntilExit()
        guard psql.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
        return path
    }

    /// A new store `name` (any old one removed) for a sessions workload: commits not synced, a 4 GiB map,
    /// and the session dictionary `init` installs unless BENCH_NO_DICTIONARY is set.
    func freshSessionStore(_ name: String) throws -> EventLog {
        let path = try freshStorePath(name)
        var options = benchOptions
        options.durable = false
        let log = try EventLog.create(at: path, key: .keyFile(keyPath), options: options)
        if ProcessInfo.processInfo.environment["BENCH_NO_DICTIONARY"] == nil { try SessionDictionary.install(in: log) }
        return log
    }

    /// 1,000 events per append and per transaction, no sync per transaction, two appends in flight,
    /// streams of 1,000 events each; the final sync is timed too.
    func batchedAppend(name: String, records: [[UInt8]], type: String, dictionary: [UInt8]) async throws {
        let path = try freshStorePath(name)
        var options = benchOptions
        options.durable = false
        options.maximumBatchEvents = 1000
        if let gib = ProcessInfo.processInfo.environment["BENCH_MAP_HEADROOM_GIB"].flatMap(Int.init) { options.mapHeadroom = gib << 30 }
        let log = try EventLog.create(at: path, key: .keyFile(keyPath), options: options)
        try log.installDictionary(dictionary)
        let batches = stride(from: 0, to: records.count, by: 1000).map { start in
            records[start..<min(records.count, start + 1000)].map { ProposedEvent(type: type, data: $0) }
        }
        let streams = (0..<batches.count).map { Self.stream(batch: $0) }
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
        let elapsed = Report.seconds(clock.now - started)
        let statistics = try log.statistics()
        let rawBytes = records.reduce(0) { $0 + $1.count }
        Report.emit(["scenario": "append-\(name)", "events": records.count, "seconds": elapsed,
                   "per_second": Double(records.count) / elapsed, "raw_bytes": rawBytes,
                   "bytes_on_disk": statistics.bytesOnDisk, "record_bytes": statistics.recordBytes,
                   "compression_ratio": statistics.compressionRatio])
    }

    /// Reads the whole log (leaf check, decrypt, decompress) twice: cold-ish, then warm.
    func scan(name: String) throws {
        try Self.scan(try EventLog.open(at: storePath(name), key: .keyFile(keyPath), options: benchOptions), name: name)
    }

    static func scan(_ log: EventLog, name: String) throws {
        try Scenarios.scan(name: name) {
            var seen = (events: 0, bytes: 0)
            try log.forEachEvent { event in
                seen.events += 1
                seen.bytes += event.data.count
            }
            return seen
        }
    }

    /// Opening the store: median and worst of 21 opens, each a new process-independent EventLog.
    func openTime(name: String) throws {
        var samples: [Double] = []
        for _ in 0..<21 {
            let clock = ContinuousClock()
            let started = clock.now
            let log = try EventLog.open(at: storePath(name), key: .keyFile(keyPath), options: benchOptions)
            samples.append(Report.seconds(clock.now - started))
            try log.close()
        }
        samples.sort()
        Report.emit(["scenario": "open-\(name)", "events": try EventLog.open(at: storePath(name), key: .keyFile(keyPath), options: benchOptions).eventCount(),
                   "median_ms": samples[samples.count / 2] * 1000, "max_ms": samples.last! * 1000])
    }

    /// `appenders` tasks, each appending one event at a time to its own stream and awaiting durability.
    func groupCommit(appenders: Int, eventsEach: Int, records: [[UInt8]], dictionary: [UInt8]) async throws {
        let path = try freshStorePath("group-\(appenders)")
        let log = try EventLog.create(at: path, key: .keyFile(keyPath), options: benchOptions)
        try log.installDictionary(dictionary)
        let streams = (0..<appenders).map { _ in StreamID() }
        try await Scenarios.durableAppends(appenders: appenders, eventsEach: eventsEach, records: records) { appender, _, record in
            try await log.append([ProposedEvent(type: Workload.smallType, data: record)], to: streams[appender])
        }
    }

    /// The stream of batch `batch` (Workload.streamBytes), as the C reference and the peers name it.
    static func stream(batch: Int) -> StreamID { stream(Workload.streamBytes(firstPosition: batch * 1000)) }

    static func stream(_ bytes: [UInt8]) -> StreamID {
        StreamID(UUID(uuid: bytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }))
    }

    /// A session's transcript read (Scenarios.transcriptRead) through `readStream`.
    func transcriptRead(name: String, events: Int) throws {
        let log = try EventLog.open(at: storePath(name), key: .keyFile(keyPath), options: benchOptions)
        try Scenarios.transcriptRead(name: name, events: events) { stream in
            try log.readStream(Self.stream(stream)) { $0.data.count }.count
        }
    }
}
