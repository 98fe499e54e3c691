import EventLog
import Foundation
import TestSupport
import Testing

/// `checkStructure`, and the structure check that `verify` and `verifyWithoutKey` start with, find a
/// damaged page header. The damage here is to a page's `upper` bound, which LMDB's read paths never
/// use: the store opens and reads, and only the structure check can see it.
@Suite struct PageStructureTests {
    @Test func aDamagedPageBoundIsFoundByEveryVerificationAndAnIntactFileIsNot() async throws {
        try await withTemporaryStore { store in
            try await {  // released before compaction, which needs the store to itself
                let log = try store.create()
                for batch in 0..<30 { try await log.append((0..<100).map { event("batch \(batch) event \($0)") }, to: StreamID()) }
                try log.close()
            }()
            try EventLog.compact(at: store.storePath, options: .testing)
            #expect(try EventLog.checkStructure(at: store.storePath, options: .testing).isIntact)

            let url = URL(fileURLWithPath: store.dataFile)
            let pristine = [UInt8](try Data(contentsOf: url))
            // Branch and leaf pages: flags 1 or 2 at byte 10 of their header.
            let treePages = (2..<(pristine.count / 4096)).filter { [1, 2].contains(pristine[$0 * 4096 + 10]) && pristine[$0 * 4096 + 11] == 0 }
            let page = try #require(treePages.dropFirst(treePages.count / 2).first)
            var damaged = pristine
            damaged[page * 4096 + 14] ^= 8  // upper ± 8
            try Data(damaged).write(to: url)

            let checked = try EventLog.checkStructure(at: store.storePath, options: .testing)
            #expect(!checked.isIntact && checked.problems.first?.message.contains("structure is damaged") == true, "\(checked.problems)")
            let verified = try store.open().verify()
            #expect(!verified.isIntact && verified.problems.first?.message.contains("page \(page)") == true, "\(verified.problems)")
            let keyless = try EventLog.verifyWithoutKey(at: store.storePath, options: .testing)
            #expect(!keyless.isIntact && !keyless.contentAuthenticated)

            try Data(pristine).write(to: url)
            #expect(try store.open().verify().isIntact)
        }
    }
}
