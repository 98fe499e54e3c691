@testable import EventLog
import Foundation
import Testing
import TestSupport

@Suite struct KeyRotationTests {
    @Test(.enabled(if: TestBackend.isLMDB, "reads LMDB's data file for old wrappings")) func afterRotationTheOldKeyIsRefusedTheNewOneReadsEverythingAndNoOldWrappingIsLeft() async throws {
        try await withTemporaryStore { store in
            let streams = (0..<20).map { _ in StreamID() }
            let (events, oldWrappings, subjectHash, verifierKey, checkpoint) = try await {
                let log = try store.create()
                for (index, stream) in streams.enumerated() {
                    try await log.append([event("secret \(index)"), event("more \(index)")], to: stream)
                }
                try await log.append([event("consent proof")], to: StreamID(), keyScope: .audit)
                try log.updateView("notes") { try $0.put([1], Array("a views-key row".utf8)) }
                try log.updateView("contents") { try $0.put([2], Array("a data-key row".utf8), sealedWithKeyOf: streams[0]) }
                let wrappings = try log.reading { txn in
                    try txn.withCursor(StoreLayout.keys) { cursor in
                        var found: [[UInt8]] = []
                        var entry = try cursor.first()
                        while let (_, value) = entry { found.append(Array(value)); entry = try cursor.next() }
                        return found
                    }
                }
                return (try log.readAll(), wrappings, log.identifierHash("someone"), log.checkpointVerifierKey, try log.signedCheckpoint())
            }()
            let newKey = store.root.appendingPathComponent("new.key").path
            try MasterKeyFile.create(at: newKey)
            let report = try EventLog.rotateMasterKey(at: store.storePath, from: store.key, to: .keyFile(newKey), waitingUpTo: TestBackend.compactionWait,
                options: .testing)
            #expect(report.dataKeys == 21 && report.dictionaries == 0 && report.viewRows == 1)

            let refused = #expect(throws: EventLogError.self) { try store.open() }
            #expect(refused?.code == .wrongKey)
            do {  // released before the last rotation, which needs the store to itself
                let log = try EventLog.open(at: store.storePath, key: .keyFile(newKey), options: .testing)
                #expect(try log.readAll() == events)
                #expect(try log.readView("notes") { try $0.row([1]) } == Array("a views-key row".utf8))
                #expect(try log.readView("contents") { try $0.row([2]) } == Array("a data-key row".utf8))
                #expect(log.identifierHash("someone") == subjectHash, "subject hashes are in records: they must not change")
                #expect(log.checkpointVerifierKey == verifierKey, "auditors keep the verifier key")
                #expect(try log.verify(anchor: try Checkpoint.verified(checkpoint.text, verifierKey: verifierKey)).anchorConsistent == true)
            }
            let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: store.dataFile)))
            for wrapping in oldWrappings { #expect(file.firstRange(of: wrapping) == nil, "an old wrapping survived") }
            let same = #expect(throws: EventLogError.self) {
                try EventLog.rotateMasterKey(at: store.storePath, from: .keyFile(newKey), to: .keyFile(newKey), options: .testing)
            }
            #expect(same?.code == .invalidArgument, "\(same.map(String.init(describing:)) ?? "nothing thrown")")
        }
    }

    @Test func aStoreRotatedToAPassphraseAndBackOpensWithEachNewKeyInTurn() async throws {
        try await withTemporaryStore { store in
            let events = try await {
                let log = try store.create()
                try await log.append([event("kept")], to: StreamID())
                return try log.readAll()
            }()
            try EventLog.rotateMasterKey(at: store.storePath, from: store.key, to: .passphrase("correct horse"),
                                         passphraseCost: .interactive, waitingUpTo: TestBackend.compactionWait, options: .testing)
            #expect(try EventLog.open(at: store.storePath, key: .passphrase("correct horse"), options: .testing).readAll() == events)
            #expect(throws: EventLogError.self) { try EventLog.open(at: store.storePath, key: .passphrase("wrong horse"), options: .testing) }
            let back = store.root.appendingPathComponent("back.key").path
            try MasterKeyFile.create(at: back)
            try EventLog.rotateMasterKey(at: store.storePath, from: .passphrase("correct horse"), to: .keyFile(back), waitingUpTo: TestBackend.compactionWait,
                options: .testing)
            #expect(try EventLog.open(at: store.storePath, key: .keyFile(back), options: .testing).readAll() == events)
            #expect(throws: EventLogError.self) { try EventLog.open(at: store.storePath, key: .passphrase("correct horse"), options: .testing) }
        }
    }

    @Test func rotationRefusesWhileTheStoreIsOpen() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let newKey = store.root.appendingPathComponent("new.key").path
            try MasterKeyFile.create(at: newKey)
            let busy = #expect(throws: EventLogError.self) {
                try EventLog.rotateMasterKey(at: store.storePath, from: store.key, to: .keyFile(newKey), waitingUpTo: .milliseconds(100),
                    options: .testing)
            }
            #expect(busy?.code == .storeBusy)
            _ = try log.readAll()  // still usable with the old key
        }
    }
}
