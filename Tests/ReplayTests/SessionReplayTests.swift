import Audio
import EventLog
import Foundation
import SessionStoreTesting
import Ingest
import Migrations
@testable import Projections
@testable import Replay
import SessionLog
import SessionModel
import Testing
import TestSupport

/// Records wall-clock waits instead of sleeping.
final class WaitRecorder: @unchecked Sendable {
    // @unchecked: the lock guards `waits`.
    private let lock = NSLock()
    private var waits: [Duration] = []
    var recorded: [Duration] { lock.withLock { waits } }
    func sleep(_ duration: Duration) { lock.withLock { waits.append(duration) } }
}

@Suite struct SessionReplayTests {
    static let session = UUID(uuidString: "9c1d6a52-3b8e-4f7a-9d2c-5e6f7a8b9c0d")!

    /// A session from NDJSON without event ids: each store derives its own ids, keyed.
    static let file = """
    {"type":"session.started","session":"\(session.uuidString.lowercased())","at":"2026-11-21T10:00:00.000Z","subject":"user-7","locale":"en"}
    {"type":"consent.granted","session":"\(session.uuidString.lowercased())","at":"2026-11-21T10:00:00.100Z","subject":"user-7","consent_type":"transcription","method":"in_app_prompt"}
    {"type":"transcript.partial","session":"\(session.uuidString.lowercased())","at":"2026-11-21T10:00:01.000Z","segment":"1","revision":0,"text":"hello","start_ms":0,"end_ms":500}
    {"type":"transcript.committed","session":"\(session.uuidString.lowercased())","at":"2026-11-21T10:00:02.000Z","segment":"1","text":"Hello there.","start_ms":0,"end_ms":1200}
    {"type":"transcript.partial","session":"\(session.uuidString.lowercased())","at":"2026-11-21T10:00:01.500Z","segment":"2","revision":0,"text":"late","start_ms":1300,"end_ms":1500}
    {"type":"transcript.committed","session":"\(session.uuidString.lowercased())","at":"2026-11-21T10:00:20.000Z","segment":"2","text":"Much later.","start_ms":1300,"end_ms":1900}
    {"type":"session.ended","session":"\(session.uuidString.lowercased())","at":"2026-11-21T10:00:21.000Z"}
    """

    static func store(_ store: TemporaryStore) async throws -> EventLog {
        let log = try store.create()
        _ = try await SessionIngest(log: log).ingest(Data(file.utf8))
        return log
    }

    @Test func theDigestDependsOnlyOnTheSessionNotOnTheStoreOrTheRun() async throws {
        let first = try await withTemporaryStore { store in
            var replay = try SessionReplay.load(Self.session, from: try await Self.store(store))
            return try await replay.run()
        }
        let second = try await withTemporaryStore { store in
            var replay = try SessionReplay.load(Self.session, from: try await Self.store(store))
            return try await replay.run()
        }
        #expect(first == second)
        #expect(first.count == 64)
        #expect(first.allSatisfy { "0123456789abcdef".contains($0) })
        // A changed word changes it.
        let changed = try await withTemporaryStore { store in
            let log = try store.create()
            _ = try await SessionIngest(log: log).ingest(Data(Self.file.replacingOccurrences(of: "Much later.", with: "Much later!").utf8))
            var replay = try SessionReplay.load(Self.session, from: log)
            return try await replay.run()
        }
        #expect(changed != first)
    }

    @Test func gapsBecomeVirtualWaitsScaledBySpeedAndABackwardsClockIsClampedAndNoted() async throws {
        try await withTemporaryStore { store in
            let log = try await Self.store(store)
            let waits = WaitRecorder()
            let events = try SessionReplay.load(Self.session, from: log)
            var replay = SessionReplay(session: Self.session, events: try Self.events(log), speed: .factor(10)) { waits.sleep($0) }
            var steps: [ReplayStep] = []
            while let step = try await replay.next() { steps.append(step) }
            try #require(steps.count == events.eventCount)
            #expect(steps.map(\.waitMilliseconds) == [0, 100, 900, 1000, 0, 18_000, 1000])
            #expect(steps.map(\.virtualMilliseconds) == [0, 100, 1000, 2000, 2000, 20_000, 21_000])
            #expect(steps[4].clockWentBackwardsBy == 500)
            #expect(steps.filter { $0.clockWentBackwardsBy != nil }.count == 1)
            #expect(waits.recorded == [.milliseconds(10), .milliseconds(90), .milliseconds(100), .milliseconds(1800), .milliseconds(100)])
        }
    }

    /// A new store holding the fixture `name` recorded with `seed`.
    static func recorded(_ name: String, seed: UInt64 = 1, in store: TemporaryStore) async throws -> (EventLog, SessionRecorder) {
        let log = try store.create()
        let recorder = try recorder(name, seed: seed)
        _ = try await SessionIngest(log: log).ingest(events: try recorder.events())
        return (log, recorder)
    }

    static func events(_ log: EventLog) throws -> [RecordedSessionEvent] {
        try log.readStream(SessionStreams.session(session)).map { try SessionMigrations.codec.decode($0) }
    }

    @Test func untilStopsAtTheLastEventWithinTheTime() async throws {
        try await withTemporaryStore { store in
            var replay = try SessionReplay.load(Self.session, from: try await Self.store(store), until: 2000)
            var count = 0
            _ = try await replay.run { _ in count += 1 }
            #expect(count == 5)
            #expect(replay.transcript.segments.map(\.text) == ["Hello there."])
        }
    }

    @Test func theLongPauseFixtureKeepsCommittedTextUnchangedAcrossItsPauses() async throws {
        try await withTemporaryStore { store in
            let (log, recorder) = try await Self.recorded("long-pauses", in: store)
            var replay = try SessionReplay.load(recorder.session, from: log)
            var committed: [String] = []
            var longestWait: Int64 = 0
            var recording = true
            while let step = try await replay.next() {
                if step.event.event.type == .recordingStopped { recording = false }
                let now = replay.transcript.segments.map(\.currentText)
                #expect(Array(now.prefix(committed.count)) == committed, "step \(step.number) changed committed text")
                committed = now
                if recording { longestWait = max(longestWait, step.waitMilliseconds) }
            }
            #expect(committed == recorder.script.segments.map(\.text))
            #expect(longestWait <= 100)  // chunks keep arriving every 100 ms through the silences
            #expect(replay.summary.status == .ended)
        }
    }

    @Test func theResumedFixtureKeepsAppendingAfterItsPause() async throws {
        try await withTemporaryStore { store in
            let (log, recorder) = try await Self.recorded("paused-resumed", in: store)
            var replay = try SessionReplay.load(recorder.session, from: log)
            var statusAtResume: SessionSummary.Status?
            var segmentsAtPause = 0
            while let step = try await replay.next() {
                if step.event.event.type == .sessionPaused {
                    #expect(replay.summary.status == .paused)
                    segmentsAtPause = replay.transcript.segments.count
                }
                if step.event.event.type == .sessionResumed { statusAtResume = replay.summary.status }
            }
            #expect(statusAtResume == .active)
            #expect(replay.transcript.segments.count > segmentsAtPause)
            #expect(replay.transcript.segments.map(\.text) == recorder.script.segments.map(\.text))
        }
    }

    @Test func verifyAgreesWithTheStoreAndNamesTheFirstEventOfADeliberatelyWrongProjection() async throws {
        try await withTemporaryStore { store in
            let log = try await Self.store(store)
            var clean = try SessionReplay.load(Self.session, from: log)
            let (digest, divergence) = try await clean.verify(against: log)
            #expect(divergence == nil)
            var plain = try SessionReplay.load(Self.session, from: log)
            #expect(try await plain.run() == digest)

            // Corrupt the stored transcript: segment 2's committed text.
            var wrong = try #require(try ProjectionRunner(log: log).transcript(of: Self.session))
            try #require(wrong.segments.count >= 2)
            wrong.segments[1].text = "Much sooner."
            try log.updateView(ProjectionRunner.transcriptsView) { try TranscriptParts.write(wrong, changes: .all(of: wrong), into: $0) }
            var replay = try SessionReplay.load(Self.session, from: log)
            let found = try #require(try await replay.verify(against: log).divergence)
            #expect(found.view == "transcript")
            #expect(found.field == "segments[2]")
            #expect(found.step == 6)
            #expect(found.eventType == "transcript.committed")
            #expect(found.expected == #"committed "Much sooner.""#)
            #expect(found.actual == #"committed "Much later.""#)
        }
    }

    @Test(arguments: RepositoryFixtures.speechFixtures)
    func everyFixtureReplaysToItsScriptsTranscript(_ name: String) async throws {
        try await withTemporaryStore { store in
            let (log, recorder) = try await Self.recorded(name, seed: 11, in: store)
            var replay = try SessionReplay.load(recorder.session, from: log)
            let (digest, divergence) = try await replay.verify(against: log)
            #expect(divergence == nil)
            var again = try SessionReplay.load(recorder.session, from: log)
            #expect(try await again.run() == digest)
            let matcher = TranscriptMatcher()
            let replayed = replay.transcript.segments.map(\.currentText).joined(separator: " ")
            let truth = recorder.script.segments.map(\.text)
            #expect(matcher.matches(truth.joined(separator: " "), replayed, within: 0) == .passed)
            #expect(matcher.phrasesInOrder([truth.first!, truth.last!], in: replayed) == .passed)
        }
    }

    @Test func aReplayLoadingInBatchesWhileItRunsEqualsOneOverEventsReadFirst() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let id = Self.session.uuidString.lowercased()
            var lines = [#"{"type":"session.started","session":"\#(id)","at":"2026-11-21T10:00:00Z","subject":"u","locale":"en"}"#]
            for index in 0..<(SessionLoader.batchSize * 2 + 123) {
                lines.append(#"{"type":"transcript.partial","session":"\#(id)","at":"2026-11-21T10:00:01Z","segment":"\#(index / 5)","revision":\#(index % 5),"text":"w\#(index)","start_ms":0,"end_ms":\#(index)}"#)
            }
            _ = try await SessionIngest(log: log).ingest(Data(lines.joined(separator: "\n").utf8))
            var streaming = try SessionReplay.load(Self.session, from: log)
            #expect(streaming.eventCount == lines.count)
            var steps = 0
            let digest = try await streaming.run { _ in steps += 1 }
            #expect(steps == lines.count)
            var preloaded = SessionReplay(session: Self.session, events: try Self.events(log))
            #expect(try await preloaded.run() == digest)
            #expect(streaming.transcript == preloaded.transcript)
        }
    }
}
