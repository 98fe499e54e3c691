import EventLog
import Foundation
import TestSupport
import Testing

/// A primary with a synchronous hot standby; four writers (each a log of its own, as four processes
/// would be) append through a multi-host URL; the primary is killed at a random moment, the standby
/// promoted, and the writers carry on against it. Three rounds, each on the last round's new primary
/// with a new standby. Every acknowledged event must be on the final primary exactly once, positions
/// contiguous, and the store must verify.
@Suite(.timeLimit(.minutes(15))) struct FailoverTests {
    actor Acknowledgements {
        private(set) var ids: [UUID] = []
        func add(_ id: UUID) { ids.append(id) }
        var count: Int { ids.count }
    }

    @Test func afterThePrimaryIsKilledAndItsStandbyPromotedEveryAcknowledgedAppendIsThereOnce() async throws {
        let scratch = Scratch.url("failover-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let keyPath = scratch.appendingPathComponent("master.key").path
        try MasterKeyFile.create(at: keyPath)
        var servers: [PostgresServer] = []
        defer {
            for server in servers { server.stop() }
            try? FileManager.default.removeItem(at: scratch)
        }
        var primary = try PostgresServer.start()
        servers.append(primary)
        try primary.sql("ALTER SYSTEM SET synchronous_standby_names = 'standby'")
        try primary.sql("SELECT pg_reload_conf()")
        var standby = try primary.standby()
        servers.append(standby)
        try await primary.waitForSynchronousStandby()
        _ = try EventLog.create(at: primary.url, key: .keyFile(keyPath), options: .testing)

        let acknowledged = Acknowledgements()
        let streams = (0..<4).map { _ in StreamID() }
        var generator = SystemRandomNumberGenerator()
        for round in 0..<3 {
            let url = "postgresql://postgres@127.0.0.1:\(primary.port),127.0.0.1:\(standby.port)/postgres"
                + "?target_session_attrs=read-write&connect_timeout=2"
            let logs = try streams.map { _ in try EventLog.open(at: url, key: .keyFile(keyPath), options: .testing) }
            let writers = zip(logs, streams).enumerated().map { writer, pair in
                Task { try await Self.append(to: pair.0, stream: pair.1, writer: writer, round: round, acknowledging: acknowledged) }
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 200...1_500, using: &generator)))
            let beforeCrash = await acknowledged.count
            try primary.crash()
            try standby.promote()
            if round < 2 {
                // The next round's standby: commits on the new primary are synchronous again once it is there.
                let next = try standby.standby()
                servers.append(next)
                try await standby.waitForSynchronousStandby()
                (primary, standby) = (standby, next)
            } else {
                try standby.sql("ALTER SYSTEM RESET synchronous_standby_names")
                try standby.sql("SELECT pg_reload_conf()")
                primary = standby
            }
            // The writers reconnect to the new primary and are acknowledged again.
            let deadline = ContinuousClock.now + .seconds(180)
            while await acknowledged.count < beforeCrash + 40, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            for writer in writers { writer.cancel() }
            for writer in writers { try await writer.value }
            // Each writer's log holds the open lock again, on the new primary: key rotation and compaction
            // there wait for them as they would have on the old one.
            let openLocks = try primary.sql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND mode = 'ShareLock' AND granted")
            #expect(Int(openLocks) ?? 0 >= streams.count, "round \(round): \(openLocks) open locks on the new primary")
            withExtendedLifetime(logs) {}
            #expect(await acknowledged.count >= beforeCrash + 40, "round \(round): the writers did not carry on after the failover")
        }

        let log = try EventLog.open(at: primary.url, key: .keyFile(keyPath), options: .testing)
        let stored = try log.readAll()
        #expect(stored.map(\.position) == Array(0..<UInt64(stored.count)), "positions are contiguous")
        let ids = stored.map(\.id)
        #expect(Set(ids).count == ids.count, "no event is stored twice")
        let missing = Set(await acknowledged.ids).subtracting(ids)
        #expect(missing.isEmpty, "\(missing.count) acknowledged events are missing")
        let report = try log.verify()
        #expect(report.isIntact, "\(report.problems.prefix(3))")
        print("failover: \(await acknowledged.count) appends acknowledged over three failovers, \(stored.count) events stored")
    }

    /// Appends one event at a time until cancelled; a failed append is sent again, the same event (its id
    /// deduplicates it, should the failed attempt have committed after all), until it is acknowledged.
    private static func append(to log: EventLog, stream: StreamID, writer: Int, round: Int, acknowledging acknowledged: Acknowledgements) async throws {
        var index = 0
        while !Task.isCancelled {
            let proposed = ProposedEvent(type: "failover.test", data: Array("writer \(writer) round \(round) event \(index)".utf8))
            while true {
                do {
                    try await log.append([proposed], to: stream, deduplicate: true)
                    break
                } catch {
                    if Task.isCancelled { return }
                    try? await Task.sleep(for: .milliseconds(50))
                }
            }
            await acknowledged.add(proposed.id)
            index += 1
        }
    }
}
