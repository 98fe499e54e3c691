import EventLog
import Foundation
import TestSupport
import Testing

/// A hot standby serves a store's reads (projections, exports, verify) through its own URL: the same
/// records, replicated, opened with the same key; a write there is refused with one clear sentence.
@Suite(.timeLimit(.minutes(5))) struct PostgresReplicaTests {
    @Test func aStoreOpenedOnAHotStandbyReadsWhatThePrimaryHoldsAndRefusesWrites() async throws {
        let scratch = Scratch.url("pg-replica-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let key = KeySource.keyFile(scratch.appendingPathComponent("master.key").path)
        try MasterKeyFile.create(at: scratch.appendingPathComponent("master.key").path)
        let primary = try PostgresServer.start()
        var servers = [primary]
        defer {
            for server in servers { server.stop() }
            try? FileManager.default.removeItem(at: scratch)
        }
        let standby = try primary.standby()
        servers.append(standby)

        let log = try EventLog.create(at: primary.url, key: key, options: .testing)
        let streams = [StreamID(), StreamID(), StreamID()]
        for round in 0..<100 {
            try await log.append([event("event \(round)")], to: streams[round % streams.count])
        }
        try log.close()
        let written = try log.readAll()
        let head = try log.verify().treeHead

        // The standby replays asynchronously: wait until it has every event.
        let deadline = ContinuousClock.now + .seconds(60)
        var replica = try EventLog.open(at: standby.url, key: key, options: .testing)
        while try replica.eventCount() < UInt64(written.count) {
            guard ContinuousClock.now < deadline else { Issue.record("the standby never caught up"); return }
            try await Task.sleep(for: .milliseconds(100))
            replica = try EventLog.open(at: standby.url, key: key, options: .testing)
        }
        #expect(try replica.readAll() == written)
        for stream in streams {
            #expect(try replica.readStream(stream).map(\.text) == (try log.readStream(stream).map(\.text)))
        }
        let report = try replica.verify()
        #expect(report.isIntact, "\(report.problems.prefix(3))")
        #expect(report.treeHead == head)

        let refused = await #expect(throws: EventLogError.self) { try await replica.append([event("on the standby")], to: streams[0]) }
        #expect(refused?.code == .permissionDenied)
        #expect(refused?.message.contains("refuses writes") == true, "\(refused?.message ?? "")")
        #expect(try EventLog.open(at: primary.url, key: key, options: .testing).eventCount() == UInt64(written.count), "nothing was written anywhere")
    }
}
