import BenchSupport
import Foundation

/// The workload in SQLCipher: SQLite whose every page is encrypted (AES-256-CBC) and authenticated
/// (HMAC-SHA1) on its way to disk, keyed with a raw 256-bit key; the events stored as plain rows
/// (position, stream, version, type, data), no per-record crypto, no compression. WAL mode, 4 KiB
/// pages, 1,000 events per transaction.
struct SQLCipherPeer: PeerStore {
    let work: URL
    let keyHex: String

    init(work: URL) {
        self.work = work
        var generator = SystemRandomNumberGenerator()
        keyHex = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    static let schema = """
        CREATE TABLE IF NOT EXISTS events(position INTEGER PRIMARY KEY, stream BLOB NOT NULL, version INTEGER NOT NULL,
                                          type TEXT NOT NULL, data BLOB NOT NULL);
        CREATE UNIQUE INDEX IF NOT EXISTS events_by_stream ON events(stream, version);
        """

    func path(_ name: String) -> String { work.appendingPathComponent("sqlcipher-\(name).db").path }

    func connect(_ name: String, synchronous: String, fresh: Bool) throws -> Connection {
        if fresh {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path(name) + suffix) }
        }
        let connection = try Connection(path: path(name))
        try connection.execute("PRAGMA key = \"x'\(keyHex)'\"")
        try connection.execute("PRAGMA cipher_page_size = 4096")
        guard let version = try connection.text("PRAGMA cipher_version"), !version.isEmpty else {
            throw Connection.Failure(description: "the linked SQLite is not SQLCipher")
        }
        try connection.execute("PRAGMA journal_mode = WAL")
        try connection.execute("PRAGMA synchronous = \(synchronous)")
        try connection.execute(Self.schema)
        return connection
    }

    func batchedAppend(name: String, records: [[UInt8]], type: String) throws {
        try Scenarios.append(name: name, records: records,
                             bytesOnDisk: { Report.bytesOnDisk(directory: work, prefix: "sqlcipher-\(name).db") }) {
            let writer = try Writer(try connect(name, synchronous: "NORMAL", fresh: true))
            for first in stride(from: 0, to: records.count, by: 1000) {
                try writer.append(records[first..<min(records.count, first + 1000)], type: type,
                                  stream: Workload.streamBytes(firstPosition: first), firstVersion: 0)
            }
            try writer.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    /// Reads every event in position order (SQLCipher decrypts and checks each page).
    func scan(name: String) throws {
        let connection = try connect(name, synchronous: "NORMAL", fresh: false)
        try Scenarios.scan(name: name) {
            let rows = try connection.prepare("SELECT position, type, data FROM events ORDER BY position")
            var seen = (events: 0, bytes: 0)
            while try rows.step() {
                seen.bytes += rows.byteCount(1) + rows.byteCount(2)
                seen.events += 1
            }
            return seen
        }
    }

    func transcriptRead(name: String, events: Int) throws {
        let connection = try connect(name, synchronous: "NORMAL", fresh: false)
        let rows = try connection.prepare("SELECT position, type, data FROM events WHERE stream = ? ORDER BY version")
        try Scenarios.transcriptRead(name: name, events: events) { stream in
            defer { rows.reset() }
            rows.bind(1, stream)
            var read = 0
            while try rows.step() {
                _ = rows.byteCount(1) + rows.byteCount(2)
                read += 1
            }
            return read
        }
    }

    /// `appenders` threads, each appending one event at a time to its own stream, in a transaction of
    /// its own, `synchronous=FULL`, through one writer.
    func durableAppends(appenders: Int, eventsEach: Int, records: [[UInt8]]) throws {
        let writer = try Writer(try connect("durable-\(appenders)", synchronous: "FULL", fresh: true))
        let results = Results()
        let clock = ContinuousClock()
        let started = clock.now
        let done = DispatchGroup()
        for appender in 0..<appenders {
            done.enter()
            Thread {
                defer { done.leave() }
                let stream = Workload.streamBytes(firstPosition: (1 << 40) + appender)
                var latencies: [Double] = []
                do {
                    for index in 0..<eventsEach {
                        let record = records[(appender * eventsEach + index) % records.count]
                        let before = clock.now
                        try writer.append([record], type: Workload.smallType, stream: stream, firstVersion: index)
                        latencies.append(Report.seconds(clock.now - before))
                    }
                    results.add(latencies)
                } catch {
                    results.fail(error)
                }
            }.start()
        }
        done.wait()
        let elapsed = Report.seconds(clock.now - started)
        Scenarios.reportDurable(appenders: appenders, latencies: try results.latencies(), seconds: elapsed)
    }

    /// The appender threads' latencies, or the first error one of them hit.
    final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var all: [Double] = []
        private var error: (any Error)?

        func add(_ latencies: [Double]) { lock.withLock { all += latencies } }
        func fail(_ error: any Error) { lock.withLock { self.error = self.error ?? error } }
        func latencies() throws -> [Double] {
            try lock.withLock {
                if let error { throw error }
                return all
            }
        }
    }

    /// One connection's appends, one at a time (SQLite has one writer), from any thread.
    final class Writer: @unchecked Sendable {
        let connection: Connection
        private let insert: Connection.Statement
        private let last: Connection.Statement
        private let lock = NSLock()

        init(_ connection: Connection) throws {
            self.connection = connection
            insert = try connection.prepare("INSERT INTO events(position, stream, version, type, data) VALUES (?, ?, ?, ?, ?)")
            last = try connection.prepare("SELECT coalesce(max(position), -1) FROM events")
        }

        /// Appends `events` to `stream` from `firstVersion` in one transaction, after the last position.
        func append(_ events: some Collection<[UInt8]>, type: String, stream: [UInt8], firstVersion: Int) throws {
            try lock.withLock {
                try connection.execute("BEGIN IMMEDIATE")
                do {
                    let first = try last.step() ? last.int64(0) + 1 : 0
                    last.reset()
                    for (offset, data) in events.enumerated() {
                        insert.bind(1, first + Int64(offset))
                        insert.bind(2, stream)
                        insert.bind(3, Int64(firstVersion + offset))
                        insert.bind(4, type)
                        insert.bind(5, data)
                        try insert.run()
                    }
                    try connection.execute("COMMIT")
                } catch {
                    try? connection.execute("ROLLBACK")
                    throw error
                }
            }
        }
    }
}
