import EventLog
import Foundation
import TestSupport
import Testing

@Suite(.enabled(if: TestBackend.isLMDB, "creates store directories")) struct CreationTests {
    @Test func aFailedCreationLeavesNoStoreAndNoStagingDirectory() async throws {
        try await withTemporaryStore { store in
            let error = #expect(throws: EventLogError.self) {
                try EventLog.create(at: store.storePath, key: .passphrase(""), options: .testing)
            }
            #expect(error?.code == .invalidArgument)
            #expect(!FileManager.default.fileExists(atPath: store.storePath))
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: store.root.path).filter { $0.contains("creating") }
            #expect(leftovers.isEmpty)
        }
    }

    @Test func aStoreCanBeCreatedInAnExistingEmptyDirectory() async throws {
        try await withTemporaryStore { store in
            try FileManager.default.createDirectory(atPath: store.storePath, withIntermediateDirectories: true)
            let log = try store.create()
            try await log.append([event("x")], to: StreamID())
            #expect(try log.eventCount() == 1)
            let mode = try FileManager.default.attributesOfItem(atPath: store.storePath)[.posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o700)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: store.root.path).filter { $0.contains("creating") }
            #expect(leftovers.isEmpty)
        }
    }
}
