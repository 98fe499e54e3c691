import BenchSealing
import BenchSupport
import Foundation
import GRDB

/// The workload through GRDB over SQLite, as a Swift developer would store sealed events: one row per
/// event (position, stream, version, the sealed record, byte for byte EventLog's envelope), one nonce
/// base per transaction, WAL mode (DatabasePool), 1,000 events per transaction.
struct GRDBPeer: PeerStore {
    let work: URL
    let sealer: Sealer

    static let schema = """
        CREATE TABLE IF NOT EXISTS events(position INTEGER PRIMARY KEY, stream BLOB NOT NULL, version INTEGER NOT NULL,
                                          record BLOB NOT NULL);
        CREATE UNIQUE INDEX IF NOT EXISTS events_by_stream ON events(stream, version);
        CREATE TABLE IF NOT EXISTS nonce_bases(first_position INTEGER PRIMARY KEY, base BLOB NOT NULL);
        """

    func path(_ name: String) -> String { work.appendingPathComponent("grdb-\(name).sqlite").path }

    /// A pool on the store `name`; `fresh` removes an old one first. Batched appends run with
    /// `synchronous=NORMAL` (in WAL mode: no sync per commit, syncs at checkpoints), durable ones with FULL.
    func pool(_ name: String, synchronous: String, fresh: Bool) throws -> DatabasePool {
        if fresh {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path(name) + suffix) }
        }
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = \(synchronous)") }
        let pool = try DatabasePool(path: path(name), configuration: configuration)
        try pool.write { db in try db.execute(sql: Self.schema) }
        return pool
    }

    /// Appends `events` to `stream` from version `firstVersion` in the caller's transaction, at the
    /// positions after the last, under one new nonce base.
    func append(_ events: some Collection<[UInt8]>, type: String, stream: [UInt8], firstVersion: Int, in db: Database) throws {
        let first = try Int64.fetchOne(db, sql: "SELECT max(position) FROM events").map { $0 + 1 } ?? 0
        let base = Sealer.randomBase()
        try db.execute(sql: "INSERT INTO nonce_bases(first_position, base) VALUES (?, ?)", arguments: [first, base])
        let insert = try db.cachedStatement(sql: "INSERT INTO events(position, stream, version, record) VALUES (?, ?, ?, ?)")
        let streamData = Data(stream)
        for (offset, data) in events.enumerated() {
            let position = first + Int64(offset)
            let record = sealer.seal(position: position, base: base, stream: stream, version: firstVersion + offset, type: type, data: data)
            try insert.execute(arguments: [position, streamData, firstVersion + offset, record])
        }
    }

    func batchedAppend(name: String, records: [[UInt8]], type: String) throws {
        let pool = try pool(name, synchronous: "NORMAL", fresh: true)
        try Scenarios.append(name: name, records: records,
                             bytesOnDisk: { Report.bytesOnDisk(directory: work, prefix: "grdb-\(name).sqlite") }) {
            for first in stride(from: 0, to: records.count, by: 1000) {
                try pool.write { db in
                    try append(records[first..<min(records.count, first + 1000)], type: type,
                               stream: Workload.streamBytes(firstPosition: first), firstVersion: 0, in: db)
                }
            }
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            try pool.close()
        }
    }

    /// Reads every record in position order, each opened (leaf check, decrypt, decompress).
    func scan(name: String) throws {
        let pool = try pool(name, synchronous: "NORMAL", fresh: false)
        try Scenarios.scan(name: name) {
            try pool.read { db in
                let bases = try Row.fetchAll(db, sql: "SELECT first_position, base FROM nonce_bases ORDER BY first_position")
                    .map { (first: $0[0] as Int64, base: $0[1] as Data) }
                var next = 0
                var base = Data()
                var seen = (events: 0, bytes: 0)
                let rows = try Row.fetchCursor(db, sql: "SELECT position, record FROM events ORDER BY position")
                while let row = try rows.next() {
                    let position: Int64 = row[0]
                    while next < bases.count, bases[next].first <= position {
                        base = bases[next].base
                        next += 1
                    }
                    guard !base.isEmpty else { throw PeerError.noNonceBase(position) }
                    seen.bytes += try row.withUnsafeData(atIndex: 1) { record in
                        try sealer.open(position: position, base: base, record: record ?? Data())
                    }
                    seen.events += 1
                }
                return seen
            }
        }
        try pool.close()
    }

    /// Every event of one session (stream), opened, with its nonce base looked up in the same query.
    func transcriptRead(name: String, events: Int) throws {
        let pool = try pool(name, synchronous: "NORMAL", fresh: false)
        try Scenarios.transcriptRead(name: name, events: events) { stream in
            try pool.read { db in
                let rows = try Row.fetchCursor(db, sql: """
                    SELECT e.position, e.record,
                           (SELECT base FROM nonce_bases WHERE first_position <= e.position
                            ORDER BY first_position DESC LIMIT 1)
                    FROM events e WHERE e.stream = ? ORDER BY e.version
                    """, arguments: [Data(stream)])
                var read = 0
                while let row = try rows.next() {
                    let position: Int64 = row[0]
                    guard let base = row[2] as Data? else { throw PeerError.noNonceBase(position) }
                    _ = try row.withUnsafeData(atIndex: 1) { try sealer.open(position: position, base: base, record: $0 ?? Data()) }
                    read += 1
                }
                return read
            }
        }
        try pool.close()
    }

    /// `appenders` tasks, each appending one event at a time to its own stream with GRDB's async write
    /// and `synchronous=FULL`: each write is a transaction of its own, synced before it returns.
    func durableAppends(appenders: Int, eventsEach: Int, records: [[UInt8]]) async throws {
        let pool = try pool("durable-\(appenders)", synchronous: "FULL", fresh: true)
        try await Scenarios.durableAppends(appenders: appenders, eventsEach: eventsEach, records: records) { appender, index, record in
            try await pool.write { db in
                try append([record], type: Workload.smallType, stream: Workload.streamBytes(firstPosition: (1 << 40) + appender),
                           firstVersion: index, in: db)
            }
        }
        try pool.close()
    }
}
