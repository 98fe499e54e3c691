import EventLog
import Foundation
import TestSupport
import Testing

/// `copy(to:)` between backends: the same records, keys and tree, resumable, and never over a store.
@Suite(PostgresServer.suite) struct CopyTests {
    struct Stop: Error {}

    private func fill(_ log: EventLog, events: Int) async throws {
        let streams = (0..<5).map { _ in StreamID() }
        for index in 0..<events {
            try await log.append([event("event \(index)")], to: streams[index % streams.count])
        }
    }

    private func expectSameStore(_ copy: EventLog, as source: EventLog) throws {
        let copied = try copy.readAll()
        let original = try source.readAll()
        #expect(copied.map(\.id) == original.map(\.id))
        #expect(copied.map(\.data) == original.map(\.data))
        #expect(copied.map(\.position) == original.map(\.position))
        #expect(copy.storeID == source.storeID)
        #expect(try copy.treeHead() == source.treeHead())
        let report = try copy.verify()
        #expect(report.isIntact, "\(report.problems.prefix(3))")
    }

    @Test func aCopyToTheOtherBackendAndBackOpensWithTheSameKeyAndHasTheSameRecordsAndTreeRoot() async throws {
        let server = try #require(PostgresServer.current)
        try await withTemporaryStore { store in
            let source = try store.create()
            try await fill(source, events: 300)
            let database = try server.freshDatabase()
            let lmdbCopy = store.root.appendingPathComponent("copy.store").path
            // From the store (LMDB or PostgreSQL, as the pass runs) to PostgreSQL, then to LMDB.
            let first = try source.copy(to: database, batchRecords: 64)
            #expect(first.records == 300 && first.copiedRecords == 300 && !first.resumed)
            let onPostgres = try EventLog.open(at: database, key: store.key, options: .testing)
            try expectSameStore(onPostgres, as: source)
            #expect(try onPostgres.copy(to: lmdbCopy).copiedRecords == 300)
            let onLMDB = try EventLog.open(at: lmdbCopy, key: store.key, options: .testing)
            try expectSameStore(onLMDB, as: source)

            // A copy is a store of its own from then on: its streams go on where the source's were.
            let stream = try #require(source.readAll().first?.stream)
            try await onLMDB.append([event("after the copy")], to: stream, expectedVersion: .exact(60))
            #expect(try onLMDB.readStream(stream).last?.text == "after the copy")
        }
    }

    @Test func anInterruptedCopyDoesNotOpenAndTheNextRunGoesOnAfterItsLastRecord() async throws {
        let server = try #require(PostgresServer.current)
        try await withTemporaryStore { store in
            let source = try store.create()
            try await fill(source, events: 400)
            for destination in [store.root.appendingPathComponent("copy.store").path, try server.freshDatabase()] {
                #expect(throws: Stop.self) {
                    try source.copy(to: destination, batchRecords: 50) { if $0.copiedRecords >= 150 { throw Stop() } }
                }
                let unfinished = #expect(throws: EventLogError.self) { try EventLog.open(at: destination, key: store.key, options: .testing) }
                #expect(unfinished?.message.contains("unfinished copy") == true, "\(String(describing: unfinished))")
                #expect(throws: EventLogError.self) { try EventLog.create(at: destination, key: store.key, options: .testing) }

                try await fill(source, events: 30)  // the source goes on meanwhile
                let total = try source.readAll().count
                let resumed = try source.copy(to: destination, batchRecords: 50)
                #expect(resumed.resumed)
                #expect(resumed.copiedRecords == UInt64(total - 150))
                #expect(resumed.records == UInt64(total))
                try expectSameStore(try EventLog.open(at: destination, key: store.key, options: .testing), as: source)
            }
        }
    }

    @Test func aCompleteCopyIsLeftAloneAndOneTheSourceHasOutgrownIsRefused() async throws {
        try await withTemporaryStore { store in
            let source = try store.create()
            try await fill(source, events: 20)
            let destination = store.root.appendingPathComponent("copy.store").path
            #expect(try source.copy(to: destination).copiedRecords == 20)
            let again = try source.copy(to: destination)
            #expect(again.copiedRecords == 0 && again.records == 20)

            try await fill(source, events: 1)
            let outgrown = #expect(throws: EventLogError.self) { try source.copy(to: destination) }
            #expect(outgrown?.code == .alreadyExists)
            #expect(outgrown?.message.contains("an earlier copy of this store (20 of its 21 records)") == true)
            #expect(try EventLog.open(at: destination, key: store.key, options: .testing).readAll().count == 20)
        }
    }

    @Test func aCopyRefusesItsSourceAnotherStoreAndAnythingNotEmptyAndChangesNothing() async throws {
        let server = try #require(PostgresServer.current)
        try await withTemporaryStore { store in
            let source = try store.create()
            try await fill(source, events: 10)

            let itself = #expect(throws: EventLogError.self) { try source.copy(to: store.storePath) }
            #expect(itself?.code == .invalidArgument)

            let otherDirectory = store.root.appendingPathComponent("other.store").path
            let otherDatabase = try server.freshDatabase()
            for other in [otherDirectory, otherDatabase] {
                let log = try EventLog.create(at: other, key: store.key, options: .testing)
                try await log.append([event("theirs")], to: StreamID())
                let refused = #expect(throws: EventLogError.self) { try source.copy(to: other) }
                #expect(refused?.code == .alreadyExists)
                #expect(refused?.message.contains("holds another store") == true)
                #expect(try log.readAll().map(\.text) == ["theirs"])
            }

            let cluttered = store.root.appendingPathComponent("cluttered").path
            try FileManager.default.createDirectory(atPath: cluttered, withIntermediateDirectories: true)
            try Data("keep me".utf8).write(to: URL(fileURLWithPath: cluttered + "/notes.txt"))
            let notEmpty = #expect(throws: EventLogError.self) { try source.copy(to: cluttered) }
            #expect(notEmpty?.code == .alreadyExists)
            #expect(try FileManager.default.contentsOfDirectory(atPath: cluttered) == ["notes.txt"])
        }
    }
}
