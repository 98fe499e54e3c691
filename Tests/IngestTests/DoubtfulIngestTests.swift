import EventLog
import Foundation
import Ingest
import Testing
import TestSupport

/// Input that parses but cannot be right: an event id reused for other content, a session that ends
/// before it starts. Refused whole, naming the lines; nothing appended.
@Suite struct DoubtfulIngestTests {
    static let session = SessionIngestTests.session
    static let started = #"{"type":"session.started","session":"\#(session)","at":"2026-11-21T10:00:00.000Z","subject":"u","locale":"en-GB","device":"d"}"#

    static func partial(id: String, text: String, keysReversed: Bool = false) -> String {
        keysReversed
            ? #"{"end_ms":700,"start_ms":0,"text":"\#(text)","revision":0,"segment":"1","at":"2026-11-21T10:00:01.000Z","session":"\#(session)","type":"transcript.partial","id":"\#(id)"}"#
            : #"{"id":"\#(id)","type":"transcript.partial","session":"\#(session)","at":"2026-11-21T10:00:01.000Z","segment":"1","revision":0,"text":"\#(text)","start_ms":0,"end_ms":700}"#
    }

    static let id = "11111111-1111-4111-8111-111111111111"

    @Test func anEventIdRepeatedWithOtherContentIsRefusedNamingBothLines() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let file = [Self.started, Self.partial(id: Self.id, text: "one"), Self.partial(id: Self.id, text: "two")].joined(separator: "\n")
            let failure = await #expect(throws: IngestFailure.self) { try await SessionIngest(log: log).ingest(Data(file.utf8)) }
            let problem = try #require(failure?.problems.first)
            #expect(problem.line == 3)
            #expect(problem.field == "id")
            #expect(problem.reason.contains("also on line 2"))
            #expect(try log.eventCount() == 0)
        }
    }

    @Test func anIdenticalRepeatIsSkippedEvenWithItsKeysInAnotherOrder() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let file = [Self.started, Self.partial(id: Self.id, text: "one"),
                        Self.partial(id: Self.id, text: "one", keysReversed: true)].joined(separator: "\n")
            let report = try await SessionIngest(log: log).ingest(Data(file.utf8))
            #expect(report.appended == 2)
            #expect(report.duplicates == 1)
        }
    }

    @Test func aSessionThatEndsBeforeItStartsInTheSameFileIsRefused() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let ended = #"{"type":"session.ended","session":"\#(Self.session)","at":"2026-11-21T09:59:59.999Z"}"#
            let failure = await #expect(throws: IngestFailure.self) {
                try await SessionIngest(log: log).ingest(Data((Self.started + "\n" + ended).utf8))
            }
            let problem = try #require(failure?.problems.first)
            #expect(problem.line == 2)
            #expect(problem.field == "at")
            #expect(problem.reason.contains("before it started (2026-11-21T10:00:00.000Z, on line 1)"))
            #expect(try log.eventCount() == 0)
        }
    }

    @Test func aSessionThatEndsBeforeItsStoredStartIsRefusedInALaterFile() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            _ = try await SessionIngest(log: log).ingest(Data(Self.started.utf8))
            let stored = try log.eventCount()
            let ended = #"{"type":"session.ended","session":"\#(Self.session)","at":"2026-11-21T08:00:00.000Z"}"#
            let failure = await #expect(throws: IngestFailure.self) { try await SessionIngest(log: log).ingest(Data(ended.utf8)) }
            #expect(failure?.problems.first?.reason.contains("in the store") == true)
            #expect(try log.eventCount() == stored)
            let onTime = #"{"type":"session.ended","session":"\#(Self.session)","at":"2026-11-21T10:00:00.000Z"}"#
            #expect(try await SessionIngest(log: log).ingest(Data(onTime.utf8)).appended == 1, "ending at the start time is allowed")
        }
    }

    @Test func anEventIdStoredEarlierIsRefusedWithOtherContentAndSkippedWhenIdentical() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let pcm = Data((0..<640).map { UInt8(truncatingIfNeeded: $0 &* 7) }).base64EncodedString()
            let chunkID = "22222222-2222-4222-8222-222222222222"
            let chunk = #"{"id":"\#(chunkID)","type":"recording.chunk","session":"\#(Self.session)","at":"2026-11-21T10:00:00.300Z","recording":"r1","index":0,"pcm":"\#(pcm)"}"#
            let recording = #"{"type":"recording.started","session":"\#(Self.session)","at":"2026-11-21T10:00:00.200Z","recording":"r1","sample_rate":16000,"channels":1}"#
            let first = [Self.started, recording, chunk, Self.partial(id: Self.id, text: "one")].joined(separator: "\n")
            _ = try await SessionIngest(log: log).ingest(Data(first.utf8))
            let stored = try log.eventCount()

            let again = try await SessionIngest(log: log).ingest(Data((chunk + "\n" + Self.partial(id: Self.id, text: "one")).utf8))
            #expect(again.appended == 0)
            #expect(again.duplicates == 2, "an identical resend, audio chunk included, is skipped")

            let failure = await #expect(throws: IngestFailure.self) {
                try await SessionIngest(log: log).ingest(Data(Self.partial(id: Self.id, text: "changed").utf8))
            }
            let problem = try #require(failure?.problems.first)
            #expect(problem.field == "id")
            #expect(problem.reason.contains("stored already (position 3)"))
            #expect(try log.eventCount() == stored)
        }
    }
}
