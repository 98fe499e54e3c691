import Foundation
@testable import SessionStoreClient
import TestSupport
import Testing

/// A fresh outbox directory under the run's scratch folder.
func outboxDirectory(_ name: String = #function) -> URL {
    let url = Scratch.url("outbox-\(UUID().uuidString.prefix(8))")
    try? FileManager.default.removeItem(at: url)
    return url
}

let testKey = OutboxKey.generate()

func line(_ text: String) -> Data { Data("{\"text\":\"\(text)\"}".utf8) }

@Suite struct OutboxTests {
    @Test func everyAppendSurvivesReopeningInOrderWithItsLine() throws {
        let directory = outboxDirectory()
        let session = UUID()
        var ids: [UUID] = []
        do {
            let outbox = try Outbox(OutboxConfiguration(directory: directory, key: testKey))
            for index in 0..<50 {
                let id = UUID()
                ids.append(id)
                try outbox.append(line: line("event \(index)"), id: id, session: session)
            }
        }
        let reopened = try Outbox(OutboxConfiguration(directory: directory, key: testKey))
        let pending = reopened.pending(of: session, limit: 100)
        #expect(pending.map(\.id) == ids)
        #expect(try pending.map { String(decoding: try reopened.line(of: $0), as: UTF8.self) } == (0..<50).map { "{\"text\":\"event \($0)\"}" })
        #expect(reopened.depth.events == 50)
    }

    /// A kill between creating a new segment and writing its header left a file the next open refused (the crash test
    /// found it); a segment is now created under a `.partial` name and renamed once its header is synced.
    @Test func aSegmentWhoseCreationAKillCutShortIsDeletedAndAppendsGoOn() throws {
        let directory = outboxDirectory()
        let session = UUID()
        var ids: [UUID] = []
        do {
            let outbox = try Outbox(OutboxConfiguration(directory: directory, key: testKey, byteBudget: 1 << 20, segmentBytes: 4 << 10))
            for index in 0..<40 {
                ids.append(UUID())
                try outbox.append(line: line("event \(index) " + String(repeating: "x", count: 200)), id: ids.last!, session: session)
            }
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names.count > 1 && names.allSatisfy { $0.hasSuffix(".outbox") }, "\(names)")
        let next = (names.compactMap(OutboxSegment.number(ofFile:)).max() ?? 0) + 1
        for (index, bytes) in [Data(), Data(repeating: 0x53, count: 11)].enumerated() {
            let partial = directory.appendingPathComponent(OutboxSegment.fileName(next + UInt64(index)) + ".partial")
            try bytes.write(to: partial)
        }
        let reopened = try Outbox(OutboxConfiguration(directory: directory, key: testKey, byteBudget: 1 << 20, segmentBytes: 4 << 10))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { !$0.hasSuffix(".partial") })
        for index in 40..<60 {
            ids.append(UUID())
            try reopened.append(line: line("event \(index) " + String(repeating: "x", count: 200)), id: ids.last!, session: session)
        }
        #expect(reopened.pending(of: session, limit: 100).map(\.id) == ids)
    }

    @Test func theFilesHoldNoLineInTheClear() throws {
        let directory = outboxDirectory()
        let outbox = try Outbox(OutboxConfiguration(directory: directory, key: testKey))
        try outbox.append(line: line("a secret diagnosis"), id: UUID(), session: UUID())
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            let bytes = try Data(contentsOf: directory.appendingPathComponent(name))
            #expect(bytes.range(of: Data("secret".utf8)) == nil)
        }
    }

    @Test func aTornLastWriteIsCutAndEverythingBeforeItIsKept() throws {
        let directory = outboxDirectory()
        let session = UUID()
        let outbox = try Outbox(OutboxConfiguration(directory: directory, key: testKey))
        for index in 0..<3 { try outbox.append(line: line("event \(index)"), id: UUID(), session: session) }
        let file = try segmentFiles(directory).last!
        let whole = try Data(contentsOf: file)
        // Each cut leaves part of the last record: its length alone, its length and half its bytes, all but one byte.
        for cut in [1, 20, 60] {
            try whole.prefix(whole.count - cut).write(to: file)
            let reopened = try Outbox(OutboxConfiguration(directory: directory, key: testKey))
            #expect(reopened.pending(of: session, limit: 10).count == 2, "cut \(cut) bytes")
            // The cut is made on disk: an append after it is read back after reopening.
            try reopened.append(line: line("after the cut"), id: UUID(), session: session)
            let again = try Outbox(OutboxConfiguration(directory: directory, key: testKey))
            let pending = again.pending(of: session, limit: 10)
            #expect(pending.count == 3)
            #expect(String(decoding: try again.line(of: pending.last!), as: UTF8.self).contains("after the cut"))
        }
        // Zeros after the last record (a file system that grew the file before the crash) are cut too.
        try (whole + Data(count: 100)).write(to: file)
        #expect(try Outbox(OutboxConfiguration(directory: directory, key: testKey)).pending(of: session, limit: 10).count == 3)
    }

    @Test func aDamagedRecordWithRecordsAfterItIsRefusedNamingTheFileAndByte() throws {
        let directory = outboxDirectory()
        let outbox = try Outbox(OutboxConfiguration(directory: directory, key: testKey))
        for index in 0..<3 { try outbox.append(line: line("event \(index)"), id: UUID(), session: UUID()) }
        let file = try segmentFiles(directory).last!
        var bytes = try Data(contentsOf: file)
        bytes[OutboxSegment.headerSize + 30] ^= 0x01
        try bytes.write(to: file)
        let error = #expect(throws: ClientError.self) { try Outbox(OutboxConfiguration(directory: directory, key: testKey)) }
        #expect(error?.code == .outboxDamaged)
        #expect(error?.message.contains("byte \(OutboxSegment.headerSize)") == true)
        #expect(error?.message.contains(file.lastPathComponent) == true)
    }

    @Test func anotherKeyDoesNotOpenTheOutbox() throws {
        let directory = outboxDirectory()
        _ = try Outbox(OutboxConfiguration(directory: directory, key: testKey))
        let error = #expect(throws: ClientError.self) { try Outbox(OutboxConfiguration(directory: directory, key: .generate())) }
        #expect(error?.code == .wrongOutboxKey)
        #expect(throws: ClientError.self) { try OutboxKey(bytes: Data(count: 16)) }
    }

    @Test func acknowledgedEventsAreReleasedTheirFilesDeletedAndTheReleaseSurvivesReopening() throws {
        let directory = outboxDirectory()
        let configuration = OutboxConfiguration(directory: directory, key: testKey, byteBudget: 1 << 20, segmentBytes: 4096)
        let session = UUID()
        let outbox = try Outbox(configuration)
        var entries: [Outbox.Entry] = []
        for index in 0..<200 { entries.append(try outbox.append(line: line("event \(index) " + String(repeating: "x", count: 100)), id: UUID(), session: session)) }
        let filesBefore = try segmentFiles(directory).count
        #expect(filesBefore > 5)
        try outbox.acknowledge(session, through: entries[149].sequence)
        #expect(outbox.depth.events == 50)
        #expect(try segmentFiles(directory).count < filesBefore)
        let reopened = try Outbox(configuration)
        #expect(reopened.pending(of: session, limit: 500).map(\.id) == entries[150...].map(\.id))
        try reopened.acknowledge(session, through: entries.last!.sequence)
        #expect(reopened.depth.events == 0)
        #expect(reopened.bytesOnDisk < 4096)
    }

    @Test func aFileIsDeletedOnlyOnceEveryEventInItIsAcknowledged() throws {
        let directory = outboxDirectory()
        let configuration = OutboxConfiguration(directory: directory, key: testKey, byteBudget: 1 << 20, segmentBytes: 1024)
        let (waiting, busy) = (UUID(), UUID())
        let outbox = try Outbox(configuration)
        let kept = try outbox.append(line: line("waiting"), id: UUID(), session: waiting)
        for index in 0..<60 {
            let entry = try outbox.append(line: line("busy \(index)"), id: UUID(), session: busy)
            try outbox.acknowledge(busy, through: entry.sequence)
        }
        #expect(String(decoding: try outbox.line(of: kept), as: UTF8.self).contains("waiting"))
        let reopened = try Outbox(configuration)
        #expect(reopened.pending(of: waiting, limit: 10).map(\.id) == [kept.id])
        try reopened.acknowledge(waiting, through: kept.sequence)
        #expect(reopened.bytesOnDisk < 1024)
    }

    @Test func theStateOfSessionsIsCarriedAcrossTheFilesThatHoldTheirEvents() throws {
        let directory = outboxDirectory()
        let configuration = OutboxConfiguration(directory: directory, key: testKey, byteBudget: 1 << 20, segmentBytes: 2048)
        let (slow, refused, fast) = (UUID(), UUID(), UUID())
        let outbox = try Outbox(configuration)
        let first = try outbox.append(line: line("slow 0"), id: UUID(), session: slow)
        let kept = try outbox.append(line: line("slow 1"), id: UUID(), session: slow)
        let bad = try outbox.append(line: line("refused 0"), id: UUID(), session: refused)
        try outbox.acknowledge(slow, through: first.sequence)
        try outbox.refuse(refused, sequence: bad.sequence, problem: Data("{\"status\":422}".utf8))
        // Many files' worth of another session, all acknowledged: the files holding the first records go.
        for index in 0..<100 {
            let entry = try outbox.append(line: line("fast \(index) " + String(repeating: "y", count: 60)), id: UUID(), session: fast)
            try outbox.acknowledge(fast, through: entry.sequence)
        }
        let reopened = try Outbox(configuration)
        #expect(reopened.pending(of: slow, limit: 10).map(\.id) == [kept.id])
        #expect(reopened.refusal(of: refused)?.problem == Data("{\"status\":422}".utf8))
        #expect(reopened.pending(of: refused, limit: 10).isEmpty)
        #expect(reopened.pending(of: fast, limit: 10).isEmpty)
    }

    @Test func anAppendPastTheBudgetIsRefusedAndWritesNothing() throws {
        let directory = outboxDirectory()
        let configuration = OutboxConfiguration(directory: directory, key: testKey, byteBudget: 8192, segmentBytes: 2048)
        let outbox = try Outbox(configuration)
        let session = UUID()
        var appended: [Outbox.Entry] = []
        let error = #expect(throws: ClientError.self) {
            while true { appended.append(try outbox.append(line: line(String(repeating: "z", count: 200)), id: UUID(), session: session)) }
        }
        #expect(error?.code == .outboxFull)
        #expect(error?.message.contains("8192") == true)
        #expect(outbox.bytesOnDisk <= 8192)
        #expect(try Outbox(configuration).pending(of: session, limit: 1000).count == appended.count)
        // Acknowledgements make room again.
        try outbox.acknowledge(session, through: appended.last!.sequence)
        try outbox.append(line: line("room again"), id: UUID(), session: session)
    }

    @Test func anEndedOrRefusedSessionTakesNoMoreEvents() throws {
        let outbox = try Outbox(OutboxConfiguration(directory: outboxDirectory(), key: testKey))
        let (ended, refused) = (UUID(), UUID())
        try outbox.append(line: line("end"), id: UUID(), session: ended, closes: true)
        #expect(throws: ClientError.self) { try outbox.append(line: line("late"), id: UUID(), session: ended) }
        let entry = try outbox.append(line: line("bad"), id: UUID(), session: refused)
        try outbox.refuse(refused, sequence: entry.sequence, problem: Data())
        let error = #expect(throws: ClientError.self) { try outbox.append(line: line("after"), id: UUID(), session: refused) }
        #expect(error?.code == .sessionRefused)
    }

    private func segmentFiles(_ directory: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".outbox") }.sorted()
            .map { directory.appendingPathComponent($0) }
    }
}
