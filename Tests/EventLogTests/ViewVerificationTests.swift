@testable import EventLog
import Foundation
import TestSupport
import Testing

/// `verify` authenticates the persisted views too: every row opens under its own key with the key its key id names,
/// and no view claims to have folded past the log's end. A reader of the views (the session list, a transcript)
/// would otherwise be the first to meet a damaged row.
@Suite struct ViewVerificationTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// A store with one event, a views-key row, a row sealed with the stream's data key and a checkpoint.
    static func storeWithViews(_ store: TemporaryStore) async throws -> (EventLog, StreamID) {
        let log = try store.create()
        let stream = StreamID(UUID())
        try await log.append([ProposedEvent(type: "t", data: Array("event".utf8))], to: stream)
        try log.updateView("sessions") { view throws in
            try view.put(bytes("a"), bytes("a session's row"))
            try view.put(bytes("b"), bytes("another row"))
            try view.put(bytes("c"), bytes("content of the stream"), sealedWithKeyOf: stream)
            try view.setCheckpoint(1)
        }
        return (log, stream)
    }

    static func storedKey(_ key: String) -> [UInt8] { [UInt8("sessions".utf8.count)] + Array("sessions".utf8) + bytes(key) }

    static func stored(_ key: String, in log: EventLog) throws -> [UInt8] {
        try #require(try log.reading { try $0.get(StoreLayout.views, storedKey(key)).map(Array.init) })
    }

    @Test func anIntactStoresViewRowsAreEachOpenedAndNoneIsReported() async throws {
        try await withTemporaryStore { store in
            let (log, _) = try await Self.storeWithViews(store)
            let report = try log.verify()
            #expect(report.isIntact, "\(report.problems)")
            #expect(report.checkedViewRows == 3 && report.erasedViewRows == 0)
        }
    }

    @Test(arguments: ["a", "c"])
    func aViewRowWithOneBitFlippedIsReportedNamingItsView(_ key: String) async throws {
        try await withTemporaryStore { store in
            let (log, _) = try await Self.storeWithViews(store)
            var row = try Self.stored(key, in: log)
            row[row.count - 1] ^= 0x01
            try log.writing { try $0.put(StoreLayout.views, Self.storedKey(key), row) }
            let report = try log.verify()
            #expect(report.problemCount == 1, "\(report.problems)")
            #expect(report.problems.first?.message.contains("the row of view sessions") == true, "\(report.problems)")
            #expect(report.checkedViewRows == 2)
        }
    }

    @Test func aRowMovedUnderAnotherKeyIsReported() async throws {
        try await withTemporaryStore { store in
            let (log, _) = try await Self.storeWithViews(store)
            let moved = try Self.stored("a", in: log)
            try log.writing { try $0.put(StoreLayout.views, Self.storedKey("b"), moved) }
            let report = try log.verify()
            #expect(report.problemCount == 1 && report.problems.first?.message.contains("does not authenticate") == true, "\(report.problems)")
        }
    }

    @Test func aCheckpointPastTheLogsEndIsReported() async throws {
        try await withTemporaryStore { store in
            let (log, _) = try await Self.storeWithViews(store)
            try log.updateView("sessions") { try $0.setCheckpoint(5) }
            let report = try log.verify()
            #expect(report.problemCount == 1 && report.problems.first?.message.contains("past the log's end") == true, "\(report.problems)")
        }
    }

    @Test func aRowWhoseDataKeyWasDestroyedIsCountedNotReported() async throws {
        try await withTemporaryStore { store in
            let (log, stream) = try await Self.storeWithViews(store)
            try log.destroyKeys(of: [stream])
            let report = try log.verify()
            #expect(report.isIntact, "\(report.problems)")
            #expect(report.erasedViewRows == 1 && report.checkedViewRows == 2)
        }
    }
}
