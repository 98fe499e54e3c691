import EventLog
import Foundation
import Ingest
import SessionLog
import Testing
import TestSupport

/// `ingestConcurrently`: small inputs from many clients checked beside each other and appended through
/// group commit, checked again when another client appended to the same session in between.
@Suite struct ConcurrentIngestTests {
    static func line(_ session: UUID, _ id: UUID, segment: Int) -> String {
        #"{"type":"transcript.committed","session":"\#(session.uuidString.lowercased())","id":"\#(id.uuidString.lowercased())","at":"2026-11-21T10:00:02.000Z","segment":"s\#(segment)","text":"word \#(segment)","start_ms":\#(segment * 10),"end_ms":\#(segment * 10 + 5)}"#
    }

    @Test func manyClientsAppendingToOneSessionAtOnceStoreEveryEventOnceWithTheirPositions() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let session = UUID()
            var recording = SessionIngest(log: log)
            recording.recordsPositions = true
            let ingest = recording
            let started = #"{"type":"session.started","session":"\#(session.uuidString.lowercased())","at":"2026-11-21T10:00:00.000Z","subject":"dana","locale":"en-US"}"#
            _ = try await ingest.ingestConcurrently(Data(started.utf8))
            let ids = (0..<64).map { _ in UUID() }
            // 64 clients on the same session: most find the stream moved on since they read it, and check again.
            let answers = try await withThrowingTaskGroup(of: (Int, IngestReport).self) { group in
                for (index, id) in ids.enumerated() {
                    group.addTask { (index, try await ingest.ingestConcurrently(Data(Self.line(session, id, segment: index).utf8))) }
                }
                return try await group.reduce(into: [Int: IngestReport]()) { $0[$1.0] = $1.1 }
            }
            let stored = try log.readStream(SessionStreams.session(session))
            #expect(stored.count == 65, "every event once")
            let positionByID = Dictionary(uniqueKeysWithValues: stored.map { ($0.id, $0.position) })
            for (index, id) in ids.enumerated() {
                #expect(answers[index]?.positions == [positionByID[id]!], "each client is told where its event is")
                #expect(answers[index]?.appended == 1)
            }
            // A resend of any of them stores nothing and answers the same position.
            let again = try await ingest.ingestConcurrently(Data(Self.line(session, ids[7], segment: 7).utf8))
            #expect(again.appended == 0 && again.duplicates == 1 && again.positions == [positionByID[ids[7]]!])
        }
    }

    /// A client that resends on a second connection while its first send is still being answered: the
    /// same events reach the store twice at once. Each answer names where the events are, though one of
    /// the sends found them new when it read the store and stored nothing (the other did, in the same
    /// group commit). This crashed the server's debug build under load (an assertion) and would have told
    /// a release build's client positions of other events.
    @Test func theSameEventsSentTwiceAtOnceAreStoredOnceAndBothAnswersNameWhereTheyAre() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            var recording = SessionIngest(log: log)
            recording.recordsPositions = true
            let ingest = recording
            for _ in 0..<40 {
                let session = UUID()
                let started = #"{"type":"session.started","session":"\#(session.uuidString.lowercased())","id":"\#(UUID().uuidString.lowercased())","at":"2026-11-21T10:00:00.000Z","subject":"dana","locale":"en-US"}"#
                let body = Data(([started] + (0..<3).map { Self.line(session, UUID(), segment: $0) }).joined(separator: "\n").utf8)
                let answers = try await withThrowingTaskGroup(of: IngestReport.self) { group in
                    for _ in 0..<4 { group.addTask { try await ingest.ingestConcurrently(body) } }
                    return try await group.reduce(into: [IngestReport]()) { $0.append($1) }
                }
                let stored = try log.readStream(SessionStreams.session(session))
                #expect(stored.count == 4, "stored once")
                #expect(answers.map(\.appended).reduce(0, +) == 4, "one of the sends stored them")
                for answer in answers { #expect(answer.positions == stored.map(\.position), "every answer names where they are") }
            }
        }
    }

    /// A live stream's ingest: an event naming another session is a problem of its line's `session` field,
    /// on both paths, and nothing of the input is appended.
    @Test func anIngestBoundToOneSessionRefusesAnEventOfAnotherAndAppendsNothing() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let session = UUID(), other = UUID()
            var binding = SessionIngest(log: log)
            binding.session = session
            let live = binding
            let started = #"{"type":"session.started","session":"\#(session.uuidString.lowercased())","at":"2026-11-21T10:00:00.000Z","subject":"dana","locale":"en-US"}"#
            let input = Data([started, Self.line(session, UUID(), segment: 1), Self.line(other, UUID(), segment: 2)].joined(separator: "\n").utf8)
            let paths: [@Sendable () async throws -> IngestReport] = [{ try await live.ingestConcurrently(input) }, { try await live.ingest(input) }]
            for path in paths {
                do {
                    _ = try await path()
                    Issue.record("an event of another session was taken")
                } catch let failure as IngestFailure {
                    #expect(failure.problems.map(\.line) == [3])
                    #expect(failure.problems.first?.field == "session")
                    #expect(failure.problems.first?.reason.contains(other.uuidString.lowercased()) == true)
                }
            }
            #expect(try log.eventCount() == 0)
            let own = try await live.ingestConcurrently(Data([started, Self.line(session, UUID(), segment: 1)].joined(separator: "\n").utf8))
            #expect(own.appended == 2, "the stream's own session is taken")
        }
    }

    @Test func aBadLineAppendsNothingAndAnInputLargerThanTheLimitTakesTheTransaction() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let session = UUID()
            let ingest = SessionIngest(log: log)
            let started = #"{"type":"session.started","session":"\#(session.uuidString.lowercased())","at":"2026-11-21T10:00:00.000Z","subject":"eli","locale":"en-US"}"#
            let bad = #"{"type":"transcript.committed","session":"\#(session.uuidString.lowercased())","at":"2026-11-21T10:00:01.000Z"}"#
            await #expect(throws: IngestFailure.self) { _ = try await ingest.ingestConcurrently(Data((started + "\n" + bad).utf8)) }
            #expect(try log.eventCount() == 0)

            let many = [started] + (0..<20_000).map { Self.line(session, UUID(), segment: $0) }
            let data = Data(many.joined(separator: "\n").utf8)
            #expect(data.count > SessionIngest.concurrentInputLimit)
            let report = try await ingest.ingestConcurrently(data)
            #expect(report.appended == 20_001)
        }
    }
}
