@testable import EventLog
import Foundation
import TestSupport
import Testing

/// The writer's directory of the unindexed tail answers exactly what the tail's clear headers say, for every
/// stream, after commits, folds, transactions of several appends and another process's appends; and it is
/// used (a store whose backend keeps one), not only consulted.
@Suite(.timeLimit(.minutes(runningSanitized ? 30 : 15)))
struct TailDirectoryTests {
    /// For every stream, the tail as readers find it and as the headers say; returns whether the directory answered.
    private func agree(_ log: EventLog, _ streams: [StreamID], _ moment: String) throws -> Bool {
        try log.reading { txn in
            let start = try StreamIndex.indexedThrough(in: txn)
            var answered = false
            for stream in streams {
                let found = try StreamIndex.tail(of: stream, in: txn)
                let scanned = try StreamIndex.scannedTail(of: stream, from: start, in: txn)
                #expect(found.map(\.position) == scanned.map(\.position), "\(moment): the tail of \(stream)")
                #expect(found.map(\.header) == scanned.map(\.header), "\(moment): the headers of \(stream)")
                if txn.tailDirectory?.entries(of: stream, indexedThrough: start, end: try StreamIndex.end(in: txn)) != nil { answered = true }
            }
            return answered
        }
    }

    @Test func theTailOfEveryStreamIsWhatItsHeadersSayAfterCommitsFoldsAndTransactions() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let streams = (0..<4).map { _ in StreamID() }
            let hasDirectory = try log.reading { $0.tailDirectory != nil }
            var answered = 0
            // 2,300 events, one stream after another: past LMDB's fold at 2,048 (PostgreSQL's at 256, which has no directory).
            for round in 0..<2300 {
                try await log.append([event("\(round)")], to: streams[round % streams.count])
                if round % 97 == 0 || round == 2299 { answered += try agree(log, streams, "after event \(round)") ? 1 : 0 }
            }
            try await log.appendInOneTransaction { appender in
                for (index, stream) in streams.enumerated() {
                    _ = try appender.append([StreamAppend(stream: stream, events: [event("in one transaction \(index)")])])
                }
            }
            answered += try agree(log, streams, "after one transaction of four appends") ? 1 : 0
            await concurrently(log, streams)
            answered += try agree(log, streams, "after concurrent appends") ? 1 : 0
            #expect(hasDirectory == (answered > 0), "the directory answered \(answered) times")
            #expect(try log.verify().isIntact)
        }
    }

    /// 64 appends at once (group commit: several appends per transaction).
    private func concurrently(_ log: EventLog, _ streams: [StreamID]) async {
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<64 {
                group.addTask { _ = try? await log.append([event("concurrent \(index)")], to: streams[index % streams.count]) }
            }
        }
    }

    @Test(.enabled(if: TestBackend.isSharedBetweenProcesses, "another process opens the store"))
    func anotherProcesssAppendsAreSeenInTheTailAndTheDirectoryResumesAfterTheNextCommit() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let mine = StreamID()
            try await log.append([event("before")], to: mine)
            let writer = try ChildProcess(BuiltProducts.url("EventLogCrashWriter"),
                                          [store.storePath, store.keyPath, store.root.appendingPathComponent("acks").path, "2"])
            let before = try log.eventCount()
            for _ in 0..<600 where try log.eventCount() < before + 200 { try await Task.sleep(for: .milliseconds(50)) }
            writer.kill()
            #expect(try log.eventCount() >= before + 200, "the other process appended: \(writer.isRunning ? "" : writer.wait().stderr)")
            let foreign = try Set(log.readAll(from: before).map(\.stream))
            let streams = [mine] + foreign
            _ = try agree(log, streams, "after the other process's appends")
            try await log.append([event("after")], to: mine, expectedVersion: .exact(1))
            let answered = try agree(log, streams, "after this process appended again")
            #expect(answered == (try log.reading { $0.tailDirectory != nil }), "the writer rescanned the tail and the directory answers again")
        }
    }
}
