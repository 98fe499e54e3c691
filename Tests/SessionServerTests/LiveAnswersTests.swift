import EventLog
import Foundation
import Hummingbird
import HummingbirdWebSocket
@testable import SessionServer
import Synchronization
import Testing

/// The live route's answers when a client's window of events arrives at once: one commit for the lot, and each
/// message answered as it would have been alone.
@Suite struct LiveAnswersTests {
    @Test func messagesThatArriveTogetherAreStoredInOneCommitAndEachIsAcknowledgedInOrder() async throws {
        try await withLiveAnswers { answers, commits, fixture in
            let (session, lines) = Self.lines(partials: 40)
            var answering = answers(session)
            let answered = try await answering.answers(to: lines.map { .text($0) }).map(Self.object)
            #expect(commits.count == 1)
            #expect(answered.map { $0["seq"] as? Int } == Array(1...lines.count))
            #expect(answered.allSatisfy { $0["duplicate"] as? Bool == false })
            let positions = answered.compactMap { $0["position"] as? Int }
            #expect(positions.count == lines.count && positions == positions.sorted() && Set(positions).count == positions.count)
            #expect(try fixture.log.readStream(StreamID(session)).map { Int($0.position) } == positions)
        }
    }

    @Test func anEventSentTwiceInOneWindowOrAgainLaterIsADuplicateAtItsFirstPosition() async throws {
        try await withLiveAnswers { answers, commits, fixture in
            let (session, lines) = Self.lines(partials: 4)
            var answering = answers(session)
            let first = try await answering.answers(to: [lines[0], lines[1], lines[1], lines[2]].map { .text($0) }).map(Self.object)
            #expect(first.map { $0["duplicate"] as? Bool } == [false, false, true, false])
            #expect(first[2]["position"] as? Int == first[1]["position"] as? Int)
            let again = try await answering.answers(to: [lines[2], lines[3], lines[4]].map { .text($0) }).map(Self.object)
            #expect(again.map { $0["seq"] as? Int } == [5, 6, 7])
            #expect(again.map { $0["duplicate"] as? Bool } == [true, false, false])
            #expect(again[0]["position"] as? Int == first[3]["position"] as? Int)
            #expect(commits.count == 2)
            #expect(try fixture.log.readStream(StreamID(session)).count == 5)
        }
    }

    @Test func aBadMessageAmongOthersIsRefusedAloneAndTheRestAreStoredALineEndIncluded() async throws {
        try await withLiveAnswers { answers, _, fixture in
            let (session, lines) = Self.lines(partials: 5)
            var answering = answers(session)
            let messages: [WebSocketMessage] = [.text(lines[0]), .text(lines[1]), .text("this is not JSON"), .text(lines[2] + "\n" + lines[3]),
                                                .binary(ByteBuffer(string: lines[4])), .text(" \t"), .text(lines[5] + "\r\n")]
            let answered = try await answering.answers(to: messages).map(Self.object)
            #expect(answered.map { $0["seq"] as? Int } == Array(1...7))
            #expect(answered.map { ($0["problem"] as? [String: Any])?["status"] as? Int } == [nil, nil, 422, 400, 400, 400, nil])
            #expect(try fixture.log.readStream(StreamID(session)).map(\.id) == [lines[0], lines[1], lines[5]].map(Self.id))
        }
    }

    @Test func withStopOnRefusalNothingAfterTheFirstRefusalIsStoredEvenInTheSameWindow() async throws {
        try await withLiveAnswers { answers, _, fixture in
            let (session, lines) = Self.lines(partials: 3)
            var answering = LiveAnswers(appender: answers(session).appender, session: session, stopOnRefusal: true)
            let answered = try await answering.answers(to: [.text(lines[0]), .text("{}"), .text(lines[1])]).map(Self.object)
            #expect(answered.map { ($0["problem"] as? [String: Any])?["status"] as? Int } == [nil, 422, 409])
            let later = try await answering.answers(to: [.text(lines[2]), .text(lines[3])]).map(Self.object)
            #expect(later.allSatisfy { ($0["problem"] as? [String: Any])?["type"] as? String == "urn:sessionstore:problem:after-refusal" })
            #expect(try fixture.log.readStream(StreamID(session)).map(\.id) == [Self.id(lines[0])])
        }
    }
}

extension LiveAnswersTests {
    /// A session's start and `partials` transcript partials, one ingest line each.
    static func lines(partials: Int) -> (UUID, [String]) {
        let session = UUID()
        let id = session.uuidString.lowercased()
        var lines = [#"{"type":"session.started","session":"\#(id)","id":"\#(UUID().uuidString.lowercased())","at":"2026-11-21T10:00:00.000Z","subject":"user-1","locale":"en-US"}"#]
        for index in 0..<partials {
            lines.append(#"{"type":"transcript.partial","session":"\#(id)","id":"\#(UUID().uuidString.lowercased())","at":"2026-11-21T10:00:01.000Z","segment":"1","revision":\#(index),"text":"word \#(index)","start_ms":0,"end_ms":100}"#)
        }
        return (session, lines)
    }

    static func id(_ line: String) -> UUID {
        UUID(uuidString: String(line.split(separator: "\"id\":\"")[1].prefix(36)))!
    }

    static func object(_ answer: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(answer)) as? [String: Any])
    }

    /// Answers for a session of a fresh store, and the count of the commits that stored events.
    func withLiveAnswers(_ body: (_ answers: (UUID) -> LiveAnswers, _ commits: Commits, _ fixture: ServerFixture) async throws -> Void)
        async throws {
        try await withServer { fixture in
            let commits = Commits()
            let appender = Appender(log: fixture.log, gate: AppendGate(capacity: 8), metrics: ServerMetrics(), committed: commits.add)
            try await body({ LiveAnswers(appender: appender, session: $0, stopOnRefusal: false) }, commits, fixture)
        }
    }

    /// How many appends stored events.
    final class Commits: Sendable {
        private let counted = Mutex(0)
        var count: Int { counted.withLock { $0 } }
        @Sendable func add() { counted.withLock { $0 += 1 } }
    }
}
