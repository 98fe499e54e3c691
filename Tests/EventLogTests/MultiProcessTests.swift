import EventLog
import Foundation
import TestSupport
import Testing

/// LMDB serialises writers across processes; the log must keep its positions, versions and index
/// right when another process appends too, and subscriptions must see that process's events.
@Suite(.enabled(if: TestBackend.isSharedBetweenProcesses, "other processes open the store"), .timeLimit(.minutes(runningSanitized ? 30 : 15)))
struct MultiProcessTests {
    @Test func appendsFromAnotherProcessInterleaveSafelyAndReachSubscribers() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let mine = StreamID()
            try await log.append([event("before")], to: mine)

            let subscriber = Task {
                var foreign = 0
                for try await recorded in log.subscribe(from: 0) where recorded.type == "crash.test" {
                    foreign += 1
                    if foreign == 50 { break }
                }
                return foreign
            }

            let writer = try ChildProcess(BuiltProducts.url("EventLogCrashWriter"),
                                          [store.storePath, store.keyPath, store.root.appendingPathComponent("acks").path])
            // This process keeps appending while the other one does.
            for index in 0..<200 {
                try await log.append([event("mine \(index)")], to: mine, expectedVersion: .exact(UInt64(index + 1)))
            }
            let deadline = Task {  // a writer that could not open the store must fail the test, not hang it
                try await Task.sleep(for: .seconds(120))
                subscriber.cancel()
            }
            defer { deadline.cancel() }
            #expect(try await subscriber.value == 50, "the other process's appends did not arrive: \(writer.isRunning ? "" : writer.wait().stderr)")
            writer.kill()

            let events = try log.readStream(mine)
            #expect(events.map(\.text) == ["before"] + (0..<200).map { "mine \($0)" })
            let all = try log.readAll()
            #expect(all.map(\.position) == Array(0..<UInt64(all.count)))
            #expect(all.contains { $0.type == "crash.test" })
            try await log.append([event("after")], to: mine, expectedVersion: .exact(201))
            let report = try log.verify()
            #expect(report.isIntact, "\(report.problems.prefix(3))")
        }
    }

    @Test func aWaitingSubscriptionIsWokenByAnotherProcessesCommitsAlone() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            try await log.append([event("before")], to: StreamID())
            // This process appends nothing more: only the other process's commits can wake the subscriber
            // (through LISTEN/NOTIFY on PostgreSQL, by looking again on LMDB).
            let subscriber = Task {
                var foreign = 0
                for try await recorded in log.subscribe(from: 1) where recorded.type == "crash.test" {
                    foreign += 1
                    if foreign == 20 { break }
                }
                return foreign
            }
            try await Task.sleep(for: .milliseconds(300))  // the subscriber is waiting now
            let writer = try ChildProcess(BuiltProducts.url("EventLogCrashWriter"),
                                          [store.storePath, store.keyPath, store.root.appendingPathComponent("acks").path, "1"])
            defer { writer.kill() }
            let deadline = Task {
                try await Task.sleep(for: .seconds(120))
                subscriber.cancel()
            }
            defer { deadline.cancel() }
            #expect(try await subscriber.value == 20, "the subscriber was not woken by the other process's commits")
        }
    }
}
