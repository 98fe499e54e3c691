@testable import EventLog
import Foundation
import Testing
import TestSupport

@Suite(.enabled(if: TestBackend.isLMDB, "compacts LMDB's data file; PostgresStoreTests compacts the database")) struct CompactionTests {
    @Test func compactionRefusesWhileTheStoreIsOpenAndAfterwardsKeepsEveryEventAndDropsFreePages() async throws {
        try await withTemporaryStore { store in
            var positions: [UInt64] = []
            do {
                let log = try store.create()
                let stream = StreamID()
                for round in 0..<50 {
                    let result = try await log.append((0..<20).map { event("round \(round) event \($0)") }, to: stream)
                    positions.append(contentsOf: result.positions)
                }
                try log.updateView("scratch") { view in  // rows written and removed leave free pages
                    for index in 0..<2000 { try view.put([UInt8](bigEndian: UInt32(index)), Array(repeating: 7, count: 200)) }
                }
                try log.updateView("scratch") { view in
                    for index in 0..<2000 { try view.remove([UInt8](bigEndian: UInt32(index))) }
                }
                let busy = #expect(throws: EventLogError.self) { try EventLog.compact(at: store.storePath, waitingUpTo: .milliseconds(100),
                    options: .testing) }
                #expect(busy?.code == .storeBusy)
                try log.close()
            }  // released: the directory lock goes with it
            let report = try EventLog.compact(at: store.storePath, options: .testing)
            #expect(report.bytesAfter < report.bytesBefore)
            #expect(!FileManager.default.fileExists(atPath: store.storePath + "/" + StoreLayout.compactingFileName))
            let log = try store.open()
            #expect(try log.readAll().map(\.position) == positions)
            #expect(try log.verify().isIntact)
            #expect(try log.readView("scratch") { view in
                var count = 0
                try view.forEachRow { _, _ in count += 1 }
                return count
            } == 0)
        }
    }

    @Test func aStrayCopyFromAnInterruptedCompactionIsReplacedByTheNextOne() async throws {
        try await withTemporaryStore { store in
            do {
                let log = try store.create()
                try await log.append([event("kept")], to: StreamID())
                try log.close()
            }
            let stray = store.storePath + "/" + StoreLayout.compactingFileName
            try Data("half a copy".utf8).write(to: URL(fileURLWithPath: stray))
            _ = try EventLog.compact(at: store.storePath, options: .testing)
            #expect(!FileManager.default.fileExists(atPath: stray))
            #expect(try store.open().readAll().map(\.text) == ["kept"])
        }
    }
}
