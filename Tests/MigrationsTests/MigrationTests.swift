@testable import EventLog
import Foundation
import Ingest
import Migrations
import Projections
import SessionLog
import SessionModel
import Testing
import TestSupport

@Suite struct MigrationTests {
    @Test func aFormat0StoreIsRefusedUntilMigratedAndThenReadsCompletely() async throws {
        try await withTemporaryStore { store in
            let (path, keyPath) = try FixtureStore.copyFormat0(into: store)
            let refused = #expect(throws: EventLogError.self) { try EventLog.open(at: path, key: .keyFile(keyPath), options: .testing) }
            #expect(refused?.code == .migrationRequired)
            #expect(refused?.message.contains("must be migrated") == true)
            #expect(refused?.message.contains("sessionstore") == false, "the engine does not name the CLI")
            #expect(try EventLog.formatVersion(at: path, options: .testing) == 0)

            let steps = try EventLog.migrate(at: path, key: .keyFile(keyPath), options: .testing)
            #expect(steps.count == 4)  // 0 → 1 → 2 → 3 → 4
            #expect(try EventLog.formatVersion(at: path, options: .testing) == 4)
            #expect(try EventLog.migrate(at: path, key: .keyFile(keyPath), options: .testing).isEmpty)  // nothing more to do

            let log = try EventLog.open(at: path, key: .keyFile(keyPath), options: .testing)
            #expect(try log.verify().isIntact)
            let events = try log.readStream(StreamID(FixtureStore.session)).map { try SessionMigrations.codec.decode($0) }
            #expect(events.count == 5)  // not doubled: the index covers them all, the tail is empty
            let statistics = try log.statistics()
            #expect(statistics.events == 6)
            #expect(statistics.recordBytes > 0)
            #expect(statistics.payloadBytes > statistics.compressedPayloadBytes / 2)
        }
    }

    @Test func oldCommitsAreUpcastOnRead() async throws {
        try await withTemporaryStore { store in
            let (path, keyPath) = try FixtureStore.copyFormat0(into: store)
            _ = try EventLog.migrate(at: path, key: .keyFile(keyPath), options: .testing)
            let log = try EventLog.open(at: path, key: .keyFile(keyPath), options: .testing)
            let commits = try log.readStream(StreamID(FixtureStore.session)).map { try SessionMigrations.codec.decode($0) }
                .compactMap { event -> (TranscriptCommitted, UInt32)? in
                    if case .transcriptCommitted(let commit) = event.event.payload { return (commit, event.storedSchemaVersion) }
                    return nil
                }
            #expect(commits.map(\.0.text) == ["An old sentence.", "Without a confidence."])
            #expect(commits.map(\.0.confidence) == [0.87, nil])
            #expect(commits.map(\.1) == [0, 0])
            try #require(commits.count == 2)
            #expect(commits[1].0.startMilliseconds == 1300)
            // Without the upcaster the old payloads cannot be read.
            let bare = SessionEventCodec(upcasters: [])
            #expect(throws: SessionModelError.self) {
                try log.readStream(StreamID(FixtureStore.session)).forEach { _ = try bare.decode($0) }
            }
            // The projections use the migrating codec.
            let runner = ProjectionRunner(log: log)
            try runner.catchUp()
            #expect(try runner.sessions().first?.segments == 2)
        }
    }

    @Test func theUpcasterKeepsAConfidenceAlreadyThereAndEveryOtherField() throws {
        var payload = WireWriter()
        payload.string(8, "seg")
        payload.double(12, 0.5)
        payload.uint(15, 99)
        payload.string(13, "speaker")
        let upcast = try SessionMigrations.upcasters[0].upcast(payload.bytes)
        var expected = WireWriter()
        expected.string(8, "seg")
        expected.double(12, 0.5)
        expected.string(13, "speaker")
        #expect(upcast == expected.bytes)
    }

    @Test func aFormat1StoreKeepsEveryViewRowReadableAfterMigration() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let session = UUID().uuidString.lowercased()
            let line = #"{"type":"session.started","session":"\#(session)","at":"2026-11-21T10:00:00.000Z","subject":"u","locale":"en"}"#
            _ = try await SessionIngest(log: log).ingest(Data(line.utf8))
            let runner = ProjectionRunner(log: log)
            try runner.catchUp()
            let before = try runner.sessions()
            try log.close()
            // Format 1 kept each row as the bare box under the views key.
            try log.environment.write { txn in
                var rows: [([UInt8], [UInt8])] = []
                try txn.withCursor(StoreLayout.views) { cursor in
                    var entry = try cursor.first()
                    while let (key, value) = entry {
                        rows.append((Array(key), Array(value)))
                        entry = try cursor.next()
                    }
                }
                for (key, value) in rows {
                    #expect(value.prefix(4) == [0, 0, 0, 0])
                    try txn.put(StoreLayout.views, key, Array(value.dropFirst(4)))
                }
                try txn.put(StoreLayout.meta, StoreLayout.formatKey, [UInt8](bigEndian: UInt32(1)))
            }
            #expect(throws: EventLogError.self) { try store.open() }
            #expect(try EventLog.migrate(at: store.storePath, key: store.key, options: .testing) == [
                "format 1 → 2: marked the 1 view rows as sealed with the views key; built the Merkle tree over 1 records",
                "format 2 → 3: indexed the ids of the 1 indexed events",
                "format 3 → 4: new appends may seal consecutive events of a stream as one block; nothing stored changes",
            ])
            #expect(try ProjectionRunner(log: try store.open()).sessions() == before)
        }
    }

    @Test func aFormat2StoreGetsItsEventIDIndexAndACheckpointTakenBeforeStillVerifies() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let stream = StreamID()
            let sent = (0..<50).map { event("event \($0)") }
            try await log.append(sent, to: stream, deduplicate: true)
            try await log.append([sent[7]], to: stream)  // an id held twice: appended without de-duplication
            let checkpoint = try log.signedCheckpoint()
            try log.close()
            // Format 2 had no event-ids.
            try log.environment.write { txn in
                var keys: [[UInt8]] = []
                try txn.withCursor(StoreLayout.eventIDs) { cursor in
                    var entry = try cursor.first()
                    while let (key, _) = entry { keys.append(Array(key)); entry = try cursor.next() }
                }
                #expect(keys.count == 50)
                for key in keys { _ = try txn.delete(StoreLayout.eventIDs, key) }
                try txn.put(StoreLayout.meta, StoreLayout.formatKey, [UInt8](bigEndian: UInt32(2)))
            }
            let refused = #expect(throws: EventLogError.self) { try store.open() }
            #expect(refused?.code == .migrationRequired)

            #expect(try EventLog.migrate(at: store.storePath, key: store.key,
                options: .testing) == ["format 2 → 3: indexed the ids of the 51 indexed events",
                                       "format 3 → 4: new appends may seal consecutive events of a stream as one block; nothing stored changes"])
            let migrated = try store.open()
            let report = try migrated.verify(anchor: checkpoint)
            #expect(report.isIntact && report.anchorConsistent == true, "the checkpoint taken in format 2 verifies against the migrated store")
            let resent = try await migrated.append(Array(sent.prefix(10)) + [event("new")], to: stream, deduplicate: true)
            #expect(resent.duplicates == 10)
            #expect(try migrated.storedPositions(of: stream, withIDs: [sent[7].id]) == [sent[7].id: 50], "an id held twice names its last event")
            #expect(try migrated.readStream(stream).count == 52)
        }
    }

    @Test func aStoreOfANewerFormatIsRefusedByOpenAndByMigrate() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            try log.close()
            try log.environment.write { txn in
                try txn.put(StoreLayout.meta, StoreLayout.formatKey, [UInt8](bigEndian: StoreLayout.formatVersion + 1))
            }
            let opened = #expect(throws: EventLogError.self) { try store.open() }
            #expect(opened?.message.contains("newer than this build") == true)
            let migrated = #expect(throws: EventLogError.self) { try EventLog.migrate(at: store.storePath, key: store.key, options: .testing) }
            #expect(migrated?.code == .unsupportedFormat)
        }
    }

    @Test func migrateChecksTheKeyBeforeTouchingTheStore() async throws {
        try await withTemporaryStore { store in
            let (path, _) = try FixtureStore.copyFormat0(into: store)
            let wrong = #expect(throws: EventLogError.self) { try EventLog.migrate(at: path, key: store.key, options: .testing) }
            #expect(wrong?.code == .wrongKey)
            #expect(try EventLog.formatVersion(at: path, options: .testing) == 0)
        }
    }
}
