import EventLog
import Foundation
import TestSupport
import Testing

/// What a crash of the PostgreSQL server keeps: on a server of the test's own, killed with `kill -9` as
/// when its machine dies, then started again.
@Suite(.timeLimit(.minutes(5))) struct PostgresDurabilityTests {
    @Test func aStoreWithoutDurableCommitsHasEveryEventAfterCloseEvenWhenTheServerThenDies() async throws {
        let scratch = Scratch.url("pg-durability-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let keyPath = scratch.appendingPathComponent("master.key").path
        try MasterKeyFile.create(at: keyPath)
        let server = try PostgresServer.start()
        var restarted: PostgresServer?
        defer {
            (restarted ?? server).stop()
            try? FileManager.default.removeItem(at: scratch)
        }
        var options = EventLogOptions.testing
        options.durable = false
        let stream = StreamID()
        let texts = (0..<600).map { "event \($0)" }
        do {
            let log = try EventLog.create(at: server.url, key: .keyFile(keyPath), options: options)
            for start in stride(from: 0, to: texts.count, by: 100) {
                try await log.append(texts[start..<start + 100].map { event($0) }, to: stream)
            }
            try log.close()
        }
        // Commits that did not wait for the disk sit in the server's memory for up to 200 ms (its WAL
        // writer's delay): killing it at once loses them unless close made them durable.
        try server.crash()
        restarted = try server.restart()
        let reopened = try EventLog.open(at: try #require(restarted).url, key: .keyFile(keyPath), options: .testing)
        #expect(try reopened.readStream(stream).map(\.text) == texts)
        #expect(try reopened.verify().isIntact)
    }
}
