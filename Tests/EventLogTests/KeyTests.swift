import EventLog
import Foundation
import TestSupport
import Testing

@Suite struct KeyTests {
    @Test func aStoreOpenedWithAnotherKeyFileFailsAtOnceWithWrongKey() async throws {
        try await withTemporaryStore { store in
            _ = try store.create()
            let otherKey = store.root.appendingPathComponent("other.key").path
            try MasterKeyFile.create(at: otherKey)
            let error = #expect(throws: EventLogError.self) { try EventLog.open(at: store.storePath, key: .keyFile(otherKey), options: .testing) }
            #expect(error?.code == .wrongKey)
        }
    }

    @Test func aPassphraseStoreOpensWithItsPassphraseOnly() async throws {
        try await withTemporaryStore { store in
            var options = EventLogOptions.testing
            options.passphraseCost = .interactive
            let stream = StreamID()
            do {
                let log = try EventLog.create(at: store.storePath, key: .passphrase("correct horse"), options: options)
                try await log.append([event("secret")], to: stream)
            }
            let reopened = try EventLog.open(at: store.storePath, key: .passphrase("correct horse"), options: .testing)
            #expect(try reopened.readStream(stream).map(\.text) == ["secret"])
            let wrong = #expect(throws: EventLogError.self) { try EventLog.open(at: store.storePath, key: .passphrase("wrong horse"),
                options: .testing) }
            #expect(wrong?.code == .wrongKey)
            let keyFile = #expect(throws: EventLogError.self) { try EventLog.open(at: store.storePath, key: store.key, options: .testing) }
            #expect(keyFile?.code == .wrongKey)
        }
    }

    @Test func aKeyFileReadableByOthersIsRefused() async throws {
        try await withTemporaryStore { store in
            chmod(store.keyPath, 0o644)
            let error = #expect(throws: EventLogError.self) { try store.create() }
            #expect(error?.code == .keyFileUnusable)
            #expect(error?.message.contains("chmod 600") == true)
        }
    }

    @Test func aKeyFileOfTheWrongSizeIsRefused() async throws {
        try await withTemporaryStore { store in
            let short = store.root.appendingPathComponent("short.key").path
            _ = FileManager.default.createFile(atPath: short, contents: Data(repeating: 1, count: 31), attributes: [.posixPermissions: 0o600])
            let error = #expect(throws: EventLogError.self) { try EventLog.create(at: store.storePath, key: .keyFile(short), options: .testing) }
            #expect(error?.code == .keyFileUnusable)
            #expect(error?.message.contains("31 bytes") == true)
        }
    }

    @Test func keyFilesAreCreatedOwnerOnlyAndNeverOverwritten() async throws {
        try await withTemporaryStore { store in
            let attributes = try FileManager.default.attributesOfItem(atPath: store.keyPath)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            #expect((attributes[.size] as? NSNumber)?.intValue == 32)
            let before = try Data(contentsOf: URL(fileURLWithPath: store.keyPath))
            let error = #expect(throws: EventLogError.self) { try MasterKeyFile.create(at: store.keyPath) }
            #expect(error?.code == .alreadyExists)
            #expect(try Data(contentsOf: URL(fileURLWithPath: store.keyPath)) == before)
        }
    }

    @Test(.enabled(if: TestBackend.isLMDB, "a key file inside a store directory: a database has no directory")) func aKeyFileInsideTheStoreDirectoryIsRefused() async throws {
        try await withTemporaryStore { store in
            try FileManager.default.createDirectory(atPath: store.storePath, withIntermediateDirectories: true)
            let inside = store.storePath + "/inside.key"
            try MasterKeyFile.create(at: inside)
            let error = #expect(throws: EventLogError.self) { try EventLog.create(at: store.storePath + "/", key: .keyFile(inside),
                options: .testing) }
            #expect(error?.code == .keyFileUnusable)
            #expect(error?.message.contains("inside the store directory") == true)
        }
    }

    @Test func creatingOverAnExistingStoreIsRefused() async throws {
        try await withTemporaryStore { store in
            _ = try store.create()
            let error = #expect(throws: EventLogError.self) { try store.create() }
            #expect(error?.code == .alreadyExists)
        }
    }

    @Test func openingWhereNoStoreIsFailsClearly() async throws {
        try await withTemporaryStore { store in
            let error = #expect(throws: EventLogError.self) { try store.open() }
            #expect(error?.code == .storeMissing)
            #expect(error?.message.contains("no store") == true)
        }
    }
}
