@testable import EventLog
import EventLogPostgres
import Foundation
import TestSupport
import Testing

/// The storage seam (StorageTransaction) behaves the same on LMDB, on PostgreSQL and in memory: what
/// the engine relies on of its tables. The conformance suite of a backend, with the engine's suites that
/// tools/test runs on each.
@Suite(PostgresServer.suite) struct StorageBackendTests {
    enum Backend: String, CaseIterable, CustomTestStringConvertible {
        case lmdb, postgresql, memory
        var testDescription: String { rawValue }
    }

    /// Runs `test` with `write` and `read`, which lend a fresh store's transactions on `backend`.
    func withBackend(_ backend: Backend, _ test: (_ write: (@escaping (StoreTransaction) throws -> Void) throws -> Void,
                                                   _ read: (@escaping (StoreTransaction) throws -> Void) throws -> Void) throws -> Void) throws {
        switch backend {
        case .lmdb:
            let directory = Scratch.url("storage-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let environment = try LMDBEnvironment(path: directory.path, databaseNames: StoreLayout.all,
                                                  mapHeadroom: 16 << 20, durable: false, create: true)
            let store = StoreEnvironment(storage: environment, backend: LMDBBackend())
            try test({ body in try store.write(body) }, { body in try store.read(body) })
        case .postgresql:
            let server = try #require(PostgresServer.current)
            let store = try StoreEnvironment.open(try server.freshDatabase(), .creating, options: .testing)
            try test({ body in try store.write(body) }, { body in try store.read(body) })
        case .memory:
            let location = "memory:storage-\(UUID().uuidString)"
            defer { MemoryStores.remove(location) }
            let store = try StoreEnvironment.open(location, .creating, options: .testing)
            try test({ body in try store.write(body) }, { body in try store.read(body) })
        }
    }

    /// Two opens of one fresh store on a backend that several opens may share.
    func twoOpens(_ backend: Backend) throws -> (StoreEnvironment, StoreEnvironment) {
        switch backend {
        case .postgresql:
            let url = try #require(PostgresServer.current).freshDatabase()
            return (try StoreEnvironment.open(url, .creating, options: .testing), try StoreEnvironment.open(url, .existing, options: .testing))
        case .memory:
            let location = "memory:two-\(UUID().uuidString)"
            return (try StoreEnvironment.open(location, .creating, options: .testing), try StoreEnvironment.open(location, .existing, options: .testing))
        case .lmdb:
            try #require(Bool(false), "LMDB forbids two opens of one environment in a process (MultiProcessTests use two processes)")
            fatalError("unreachable")
        }
    }

    static let table = StoreLayout.streams

    @Test(arguments: Backend.allCases)
    func whatIsPutIsReadBackReplacedAndDeleted(_ backend: Backend) throws {
        try withBackend(backend) { write, read in
            try write { (txn: StoreTransaction) throws in
                try txn.put(Self.table, [1, 2], [10, 20, 30])
                try txn.put(Self.table, [3], [UInt8]())
                #expect(try txn.value(Self.table, [1, 2]) == [10, 20, 30])
                try txn.put(Self.table, [1, 2], [99])
                #expect(try txn.value(Self.table, [1, 2]) == [99])
            }
            try read { (txn: StoreTransaction) throws in
                #expect(try txn.value(Self.table, [1, 2]) == [99])
                #expect(try txn.value(Self.table, [3]) == [])
                #expect(try txn.value(Self.table, [4]) == nil)
                #expect(try txn.count(Self.table) == 2)
            }
            try write { (txn: StoreTransaction) throws in
                #expect(try txn.delete(Self.table, [1, 2]))
                #expect(try !txn.delete(Self.table, [1, 2]))
                #expect(try txn.value(Self.table, [1, 2]) == nil)
            }
            try read { (txn: StoreTransaction) throws in #expect(try txn.count(Self.table) == 1) }
        }
    }

    /// A delete answers whether the key was there, whether the transaction read it ahead, holds a write of it or of
    /// other keys (a server's backend sends writes late), and leaves the other keys' writes as they are; a scrubbing put
    /// replaces a value of another size.
    @Test(arguments: Backend.allCases)
    func aDeleteAnswersAsTheStoreIsWhateverTheTransactionReadAheadOrHolds(_ backend: Backend) throws {
        try withBackend(backend) { write, read in
            try write { (txn: StoreTransaction) throws in try txn.put(Self.table, [1], [1]) }
            try write { (txn: StoreTransaction) throws in
                try txn.prefetch(Self.table, keys: [[1], [2], [5]])
                try txn.put(Self.table, [3], [3])
                try txn.put(Self.table, [4], [4])
                #expect(try !txn.delete(Self.table, [2]), "read ahead as absent")
                #expect(try txn.delete(Self.table, [1]), "read ahead as stored")
                #expect(try txn.delete(Self.table, [3]), "written in this transaction only")
                try txn.put(Self.table, [5], [5])
                #expect(try txn.delete(Self.table, [5]), "read ahead as absent, then written")
                #expect(try !txn.delete(Self.table, [5]))
                #expect(try txn.value(Self.table, [3]) == nil)
                #expect(try txn.value(Self.table, [4]) == [4])
                try txn.scrubAndPut(Self.table, [6], [6, 6, 6])
                try txn.scrubAndPut(Self.table, [6], [7])
            }
            try read { (txn: StoreTransaction) throws in
                for key: UInt8 in [1, 2, 3, 5] { #expect(try txn.value(Self.table, [key]) == nil, "key \(key)") }
                #expect(try txn.value(Self.table, [4]) == [4])
                #expect(try txn.value(Self.table, [6]) == [7])
                #expect(try txn.count(Self.table) == 2)
            }
        }
    }

    @Test(arguments: Backend.allCases)
    func aThrowingWriteLeavesNothingBehind(_ backend: Backend) throws {
        struct Refused: Error {}
        try withBackend(backend) { write, read in
            try write { (txn: StoreTransaction) throws in try txn.put(Self.table, [1], [1]) }
            #expect(throws: Refused.self) {
                try write { (txn: StoreTransaction) throws in
                    try txn.put(Self.table, [2], [2])
                    try txn.put(Self.table, [1], [7])
                    throw Refused()
                }
            }
            try read { (txn: StoreTransaction) throws in
                #expect(try txn.value(Self.table, [1]) == [1])
                #expect(try txn.value(Self.table, [2]) == nil)
            }
        }
    }

    @Test(arguments: Backend.allCases)
    func cursorsWalkBothWaysInUnsignedByteOrderAndSeek(_ backend: Backend) throws {
        // Bytes above 0x7F sort after those below (unsigned), and a prefix sorts before its extensions.
        let keys: [[UInt8]] = [[0x00], [0x01], [0x01, 0x00], [0x7F], [0x80], [0xFF], [0xFF, 0xFF]]
        try withBackend(backend) { write, read in
            try write { (txn: StoreTransaction) throws in
                for (index, key) in keys.shuffled().enumerated() { try txn.put(Self.table, key, [UInt8(index)]) }
                // Enough rows for the PostgreSQL cursor to fetch several times.
                for index in 0..<300 { try txn.put(Self.table, [0x40, UInt8(index >> 8), UInt8(index & 0xFF)], [1]) }
            }
            let expected = (keys + (0..<300).map { [0x40, UInt8($0 >> 8), UInt8($0 & 0xFF)] }).sorted { $0.lexicographicallyPrecedes($1) }
            try read { (txn: StoreTransaction) throws in
                let (forward, backward, sought, pastEnd) = try txn.withCursor(Self.table) { cursor in
                    var forward: [[UInt8]] = []
                    var entry = try cursor.first()
                    while let current = entry {
                        forward.append(Array(current.key))
                        entry = try cursor.next()
                    }
                    var backward: [[UInt8]] = []
                    entry = try cursor.last()
                    while let current = entry {
                        backward.append(Array(current.key))
                        entry = try cursor.previous()
                    }
                    let sought = try cursor.seek(atOrAfter: [0x7F, 0x00]).map { Array($0.key) }
                    let afterSeek = try cursor.next().map { Array($0.key) }
                    let pastEnd = try cursor.seek(atOrAfter: [0xFF, 0xFF, 0x00]).map { Array($0.key) }
                    return (forward, backward, [sought, afterSeek], pastEnd)
                }
                #expect(forward == expected)
                #expect(backward == expected.reversed())
                #expect(sought == [[0x80], [0xFF]])
                #expect(pastEnd == nil)
            }
        }
    }

    @Test(arguments: Backend.allCases)
    func aCursorSeesWritesMadeEarlierInItsTransaction(_ backend: Backend) throws {
        try withBackend(backend) { write, _ in
            try write { (txn: StoreTransaction) throws in
                for index in 0..<40 { try txn.put(Self.table, [UInt8(index * 2)], [1]) }
                try txn.withCursor(Self.table) { cursor in
                    #expect(try cursor.first().map { Array($0.key) } == [0])
                    try txn.put(Self.table, [1], [2])
                    #expect(try cursor.next().map { Array($0.key) } == [1])
                    try txn.delete(Self.table, [2])
                    #expect(try cursor.next().map { Array($0.key) } == [4])
                }
            }
        }
    }

    @Test(arguments: Backend.allCases)
    func appendedRecordsAreSeenByEveryReadOfTheirTransactionAndGoWithARollback(_ backend: Backend) throws {
        struct Refused: Error {}
        let record = { (position: UInt64) in [UInt8](repeating: UInt8(position & 0xFF), count: Int(position % 300)) }
        try withBackend(backend) { write, read in
            try write { (txn: StoreTransaction) throws in
                for position in UInt64(0)..<25_000 { try txn.put(StoreLayout.events, StoreLayout.positionKey(position), record(position), append: true) }
                #expect(try txn.count(StoreLayout.events) == 25_000)
                for position in UInt64(25_000)..<25_010 { try txn.put(StoreLayout.events, StoreLayout.positionKey(position), record(position), append: true) }
                try txn.withCursor(StoreLayout.events) { cursor in
                    #expect(try cursor.last().map { $0.key.loadBigEndian(at: 0) as UInt64 } == 25_009)
                    try txn.put(StoreLayout.events, StoreLayout.positionKey(25_010), record(25_010), append: true)
                    #expect(try cursor.next().map { $0.key.loadBigEndian(at: 0) as UInt64 } == 25_010)
                }
                try txn.put(StoreLayout.events, StoreLayout.positionKey(25_011), record(25_011), append: true)
            }
            #expect(throws: Refused.self) {
                try write { (txn: StoreTransaction) throws in
                    try txn.put(StoreLayout.events, StoreLayout.positionKey(25_012), [1], append: true)
                    throw Refused()
                }
            }
            try read { (txn: StoreTransaction) throws in
                #expect(try txn.count(StoreLayout.events) == 25_012)
                for position in [UInt64(0), 299, 9_999, 10_000, 24_999, 25_011] {
                    #expect(try txn.value(StoreLayout.events, StoreLayout.positionKey(position)) == record(position))
                }
            }
        }
    }

    @Test(arguments: Backend.allCases)
    func eventPositionsAreEightByteKeysInPositionOrder(_ backend: Backend) throws {
        let positions: [UInt64] = [0, 1, 255, 256, 1 << 32, (1 << 62) + 5]
        try withBackend(backend) { write, read in
            try write { (txn: StoreTransaction) throws in
                for position in positions { try txn.put(StoreLayout.events, StoreLayout.positionKey(position), [UInt8(position & 0xFF)]) }
            }
            try read { (txn: StoreTransaction) throws in
                let walked = try txn.withCursor(StoreLayout.events) { cursor in
                    var keys: [UInt64] = []
                    var entry = try cursor.first()
                    while let current = entry {
                        keys.append(current.key.loadBigEndian(at: 0))
                        entry = try cursor.next()
                    }
                    return keys
                }
                #expect(walked == positions)
                #expect(try txn.value(StoreLayout.events, StoreLayout.positionKey(256)) == [0])
            }
        }
    }

    @Test(arguments: [Backend.postgresql, .memory])
    func aReadTransactionKeepsItsSnapshotWhileAWriterCommits(_ backend: Backend) throws {
        let (reader, writer) = try twoOpens(backend)
        try writer.write { try $0.put(Self.table, [1], [1]) }
        try reader.read { (txn: StoreTransaction) throws in
            #expect(try txn.value(Self.table, [1]) == [1])
            try writer.write { try $0.put(Self.table, [1], [2]) }
            #expect(try txn.value(Self.table, [1]) == [1])
        }
        let after = try reader.read { txn in try txn.value(Self.table, [1]) }
        #expect(after == [2])
    }

    @Test(arguments: [Backend.postgresql, .memory])
    func aSecondWriterWaitsForTheFirstToCommitAndThenSeesItsWrites(_ backend: Backend) throws {
        let (first, second) = try twoOpens(backend)
        let secondReady = DispatchSemaphore(value: 0)
        let secondDone = DispatchSemaphore(value: 0)
        let seen = LockedValue<[UInt8]?>(nil)
        let finishedEarly = LockedValue(false)
        try first.write { txn in
            try txn.put(Self.table, [1], [1])
            Thread {
                secondReady.signal()
                seen.set(try? second.write { try $0.value(Self.table, [1]) } ?? [])
                secondDone.signal()
            }.start()
            secondReady.wait()
            // The second writer is blocked as long as this transaction is open.
            finishedEarly.set(secondDone.wait(timeout: .now() + .milliseconds(300)) == .success)
            #expect(!finishedEarly.get())
        }
        if !finishedEarly.get() { secondDone.wait() }
        #expect(seen.get() == [1])
    }

    @Test func aMemoryStoreOpenedAloneWaitsForItsOtherOpensAndRefusesWhenTheyStay() throws {
        let location = "memory:exclusive-\(UUID().uuidString)"
        defer { MemoryStores.remove(location) }
        var shared: StoreEnvironment? = try StoreEnvironment.open(location, .creating, options: .testing)
        #expect(throws: EventLogError.self) { _ = try StoreEnvironment.open(location, .exclusive(.milliseconds(100)), options: .testing) }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(100)) { [shared] in _ = shared }
        shared = nil
        let alone = try StoreEnvironment.open(location, .exclusive(.seconds(5)), options: .testing)
        #expect(try alone.read { try $0.count(Self.table) } == 0)
        #expect(throws: EventLogError.self) { _ = try StoreEnvironment.open("memory:missing-\(UUID().uuidString)", .existing, options: .testing) }
    }
}

/// Which backend a location names.
@Suite struct StorageBackendChoiceTests {
    @Test func aLocationIsLMDBsUnlessItIsAURLOrAMemoryName() throws {
        #expect(try StorageBackends.backend(for: "stores/a", among: []) is LMDBBackend)
        #expect(try StorageBackends.backend(for: "./odd:name", among: []) is LMDBBackend, "a colon is not a URL scheme")
        #expect(try StorageBackends.backend(for: "memory:x", among: []) is MemoryBackend)
        #expect(try StorageBackends.backend(for: "MEMORY:x", among: []) is MemoryBackend)
    }

    @Test func aPostgreSQLURLOpensOnlyWithTheBackendHandedInTheOptions() throws {
        let url = "postgresql://app:s3cret@127.0.0.1:1/sessions"
        let refusal = #expect(throws: EventLogError.self) { _ = try StorageBackends.backend(for: url, among: EventLogOptions().backends) }
        #expect(refusal?.code == .storeUnusable)
        #expect(refusal?.message.contains("withPostgreSQL()") == true)
        let backend = try StorageBackends.backend(for: url, among: EventLogOptions().withPostgreSQL().backends)
        #expect(!(backend is LMDBBackend) && !(backend is MemoryBackend) && !backend.isDirectory)
        #expect(EventLogOptions().withPostgreSQL().withPostgreSQL().backends.count == 1, "handing it twice keeps one")
    }

    @Test func aURLOfABackendThisProgramLacksIsRefusedNamingTheLocationWithItsPasswordHidden() throws {
        let refusal = #expect(throws: EventLogError.self) { _ = try StorageBackends.backend(for: "mysql://app:s3cret@db/sessions", among: EventLogOptions.testing.backends) }
        #expect(refusal?.code == .storeUnusable)
        #expect(refusal?.message.contains("mysql://app:***@db/sessions") == true && refusal?.message.contains("s3cret") == false)
        #expect(throws: EventLogError.self) { _ = try EventLog.open(at: "mysql://db/sessions", key: .keyFile("/nonexistent"), options: .testing) }
    }

    @Test func sameStoreIsJudgedByTheBackend() throws {
        #expect(StoreLocation.same("memory:a", "memory:a", backends: []) && !StoreLocation.same("memory:a", "memory:b", backends: []))
        #expect(StoreLocation.same("/tmp/x/../y", "/tmp/y", backends: []) && !StoreLocation.same("/tmp/y", "memory:/tmp/y", backends: []))
    }
}

extension StorageTransaction {
    /// The value at `key`, copied.
    func value(_ table: String, _ key: [UInt8]) throws -> [UInt8]? { try get(table, key).map(Array.init) }
}

/// A value shared with another thread.
final class LockedValue<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T
    init(_ value: T) { self.value = value }
    func set(_ value: T) { lock.withLock { self.value = value } }
    func get() -> T { lock.withLock { value } }
}
