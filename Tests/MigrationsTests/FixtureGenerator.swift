@testable import EventLog
import Foundation
import Ingest
import SessionModel
import Testing
import TestSupport

/// Writes Fixtures/stores/format0 anew. Run only on purpose: REGENERATE_FIXTURES=1 swift test --filter FixtureGenerator
@Suite struct FixtureGenerator {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["REGENERATE_FIXTURES"] != nil))
    func regenerateTheFormat0Store() async throws {
        try? FileManager.default.removeItem(at: FixtureStore.format0)
        try? FileManager.default.removeItem(at: FixtureStore.format0Key)
        try FileManager.default.createDirectory(at: FixtureStore.root, withIntermediateDirectories: true)
        try MasterKeyFile.create(at: FixtureStore.format0Key.path)
        let log = try EventLog.create(at: FixtureStore.format0.path, key: .keyFile(FixtureStore.format0Key.path), options: .testing)
        let session = FixtureStore.session.uuidString.lowercased()
        let file = """
        {"type":"session.started","session":"\(session)","at":"2025-03-01T09:00:00.000Z","subject":"fixture-user","locale":"en-GB","device":"old client 0.9"}
        {"type":"consent.granted","session":"\(session)","at":"2025-03-01T09:00:00.500Z","subject":"fixture-user","consent_type":"transcription","method":"in_app_prompt"}
        {"type":"transcript.partial","session":"\(session)","at":"2025-03-01T09:00:01.000Z","segment":"1","revision":0,"text":"an old","start_ms":0,"end_ms":500}
        """
        _ = try await SessionIngest(log: log).ingest(Data(file.utf8))
        // Two commits in schema 0: no version field, confidence as a percentage in field 15.
        var old = WireWriter()
        old.sint(2, 1_740_819_602_000)
        old.string(8, "1")
        old.string(9, "An old sentence.")
        old.uint(11, 1200)
        old.uint(15, 87)
        var second = WireWriter()
        second.sint(2, 1_740_819_604_000)
        second.string(8, "2")
        second.string(9, "Without a confidence.")
        second.uint(10, 1300)
        second.uint(11, 2000)
        try await log.append([ProposedEvent(type: "transcript.committed", data: old.bytes),
                              ProposedEvent(type: "transcript.committed", data: second.bytes)],
                             to: StreamID(FixtureStore.session))
        try log.close()
        // Format 0 had no running totals and indexed every event at once (no indexed-through).
        try log.environment.write { txn in
            try txn.delete(StoreLayout.meta, StoreLayout.totalsKey)
            try txn.delete(StoreLayout.meta, StoreLayout.indexedThroughKey)
            try txn.put(StoreLayout.meta, StoreLayout.formatKey, [UInt8](bigEndian: UInt32(0)))
        }
        try? FileManager.default.removeItem(at: FixtureStore.format0.appendingPathComponent("lock.mdb"))
    }
}
