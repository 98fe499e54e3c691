import EventLog
import Foundation
import Ingest
import Migrations
@testable import Replay
import SessionLog
import SessionModel
import Testing
import TestSupport

/// The library's drive: a stored session replayed into an in-process target, and the comparison of
/// what it produced.
@Suite struct ReplayDriveTests {
    /// Answers each commit it is sent with the same words, leaving times and ids to the driver.
    static let echo = InProcessReplayTarget(name: "echo") { recorded in
        guard case .transcriptCommitted(let commit) = recorded.event.payload else { return [] }
        return [ProducedEvent(.transcriptCommitted(TranscriptCommitted(segment: "run-" + commit.segment, text: commit.text,
                                                                       startMilliseconds: commit.startMilliseconds,
                                                                       endMilliseconds: commit.endMilliseconds)))]
    }

    @Test func anEchoingTargetIsPerfectAndItsEventsAreStampedWithTheVirtualTimeTheyCameAt() async throws {
        try await withTemporaryStore { store in
            let (log, recorder) = try await SessionReplayTests.recorded("short-dictation", in: store)
            let drive = try ReplayDrive(session: recorder.session, log: log, options: .init(withTranscript: true))
            let result = try await drive.run(into: Self.echo)
            let source = try await TranscriptTimeline.load(recorder.session, from: log)
            #expect(result.produced.count == source.segments.count)
            let run = UUID()
            let events = result.transcriptEvents(of: run)
            // At max speed the clock stands at the last event taken: the source's commit itself.
            #expect(events.map(\.occurredAt) == source.segments.map(\.committedAt))
            let comparison = TranscriptComparison(source: source, run: TranscriptTimeline(session: run, events: events))
            #expect(comparison.wordErrorRate == 0 && comparison.passed)
            #expect(comparison.segments.allSatisfy { $0.commitDriftMilliseconds == 0 })
            _ = try await SessionIngest(log: log).ingest(events: result.runEvents(of: run, record: ReplayRun(
                source: recorder.session, command: "echo", speed: "max", startedAt: result.startedAt, endedAt: result.endedAt)))
            let stored = try await TranscriptTimeline.load(run, from: log)
            #expect(stored.segments.map(\.text) == source.segments.map(\.text))
        }
    }

    @Test func withoutTranscriptTheTargetSeesNoTranscriptEventAndTheWaitsFollowTheSpeed() async throws {
        try await withTemporaryStore { store in
            let (log, recorder) = try await SessionReplayTests.recorded("short-dictation", in: store)
            let seen = WaitRecorder()
            let target = InProcessReplayTarget(name: "counter") { recorded in
                if SessionReplay.transcriptSegment(of: recorded.event.payload) != nil { seen.sleep(.seconds(1)) }
                return []
            }
            let waits = WaitRecorder()
            let drive = try ReplayDrive(session: recorder.session, log: log, options: .init(speed: .factor(10))) { waits.sleep($0) }
            let result = try await drive.run(into: target)
            #expect(seen.recorded.isEmpty)
            let events = try log.readStream(SessionStreams.session(recorder.session)).map { try SessionMigrations.codec.decode($0) }
            let span = events.last!.event.occurredAt - events.first!.event.occurredAt
            let waited = waits.recorded.reduce(Duration.zero, +)
            let seconds: Double = Double(waited.components.seconds) + Double(waited.components.attoseconds) / 1e18
            let expected: Double = Double(span) / 10_000
            #expect(abs(seconds - expected) < 0.01)
            #expect(result.eventsTaken == events.filter { SessionReplay.transcriptSegment(of: $0.event.payload) == nil }.count)
        }
    }

    @Test func aTargetThatIgnoresItsInputPastTheTimeoutIsStopped() async throws {
        try await withTemporaryStore { store in
            let (log, recorder) = try await SessionReplayTests.recorded("short-dictation", in: store)
            let stuck = InProcessReplayTarget(name: "stuck") { _, _ in try await Task.sleep(for: .seconds(600)) }
            let drive = try ReplayDrive(session: recorder.session, log: log, options: .init(timeout: .milliseconds(300)))
            await #expect(throws: ReplayDriveError.stoppedReading(event: 1, timeout: .milliseconds(300))) {
                _ = try await drive.run(into: stuck)
            }
        }
    }

    @Test func withoutATimeoutADriveWaitsThirtySecondsPlusTheSessionsLengthAtItsSpeed() {
        #expect(ReplayDrive.Options(speed: .factor(1)).timeout(forRecordedLength: 63_000) == .seconds(93))
        #expect(ReplayDrive.Options(speed: .factor(2)).timeout(forRecordedLength: 63_000) == .milliseconds(61_500))
        #expect(ReplayDrive.Options(speed: .max).timeout(forRecordedLength: 63_000) == .seconds(30))
        #expect(ReplayDrive.Options(speed: .factor(1), timeout: .seconds(5)).timeout(forRecordedLength: 63_000) == .seconds(5),
                "a timeout given is the timeout")
    }

    @Test func aLoadedSessionKnowsItsRecordedLength() async throws {
        try await withTemporaryStore { store in
            let (log, recorder) = try await SessionReplayTests.recorded("short-dictation", in: store)
            let events = try log.readStream(SessionStreams.session(recorder.session)).map { try SessionMigrations.codec.decode($0) }
            let length = try #require(events.last?.event.occurredAt) - (events.first?.event.occurredAt ?? 0)
            #expect(length > 8_000, "the fixture holds 8 s of speech")
            #expect(try SessionLoader(session: recorder.session, log: log).recordedLength == length)
        }
    }

    /// The race a loaded machine hit: the driver was already waiting to hand over the next event when the
    /// system's take of the one before was counted, and that cleared the wait, so a hung system was never stopped.
    @Test func aLateTakeOfTheEventBeforeDoesNotHideAHangOnTheNext() async throws {
        let monitor = DriveMonitor()
        monitor.waiting(for: 1)
        monitor.waiting(for: 2)  // event 1 was handed over; its taker has not run yet
        monitor.took(1)
        try await Task.sleep(for: .milliseconds(5))
        #expect(monitor.hang(timeout: .milliseconds(1)) == .stoppedReading(event: 2, timeout: .milliseconds(1)))
        monitor.took(1)
        #expect(monitor.hang(timeout: .milliseconds(1)) == nil, "event 2 was taken")
    }

    /// A command reading input it was sent ahead (in the pipe, in the queue) is not silent: the silence
    /// after the input ended counts from the last event it took, and only once it took them all.
    @Test func aSystemStillTakingItsInputAfterTheInputEndedIsNotSilentAndOneThatStoppedIsStoppedReading() async throws {
        let monitor = DriveMonitor()
        let timeout = Duration.seconds(1)
        monitor.waiting(for: 3)
        monitor.inputEnded()  // everything was handed over (written ahead)
        try await Task.sleep(for: .milliseconds(1200))
        monitor.took(2)
        #expect(monitor.hang(timeout: timeout) == nil, "it took events just now, though its input ended over a second ago")
        try await Task.sleep(for: .milliseconds(1200))
        #expect(monitor.hang(timeout: timeout) == .stoppedReading(event: 3, timeout: timeout))
        monitor.took(1)
        #expect(monitor.hang(timeout: timeout) == nil, "the silence counts from its last take")
        try await Task.sleep(for: .milliseconds(1200))
        #expect(monitor.hang(timeout: timeout) == .silentAfterInput(timeout: timeout))
    }

    @Test func aTargetThatProducesAnEventOfAnotherTypeFails() async throws {
        try await withTemporaryStore { store in
            let (log, recorder) = try await SessionReplayTests.recorded("short-dictation", in: store)
            let wrong = InProcessReplayTarget(name: "wrong") { _ in [ProducedEvent(.sessionResumed, line: 7)] }
            let drive = try ReplayDrive(session: recorder.session, log: log)
            await #expect {
                _ = try await drive.run(into: wrong)
            } throws: { error in
                guard case .invalidOutput(let problem) = error as? ReplayDriveError else { return false }
                return problem.line == 7 && problem.reason.contains("session.resumed")
            }
        }
    }

    @Test func aDroppedWordIsOneDeletionInItsSegment() {
        let session = UUID(), run = UUID()
        func commit(_ id: String, _ text: String, _ start: UInt64, at: Int64, in session: UUID) -> SessionEvent {
            SessionEvent(session: session, occurredAt: at, payload: .transcriptCommitted(TranscriptCommitted(
                segment: id, text: text, startMilliseconds: start, endMilliseconds: start + 900)))
        }
        let recording = SessionEvent(session: session, occurredAt: 0, payload: .recordingStarted(
            RecordingStarted(recording: "r", sampleRate: 16000, channels: 1)))
        let source = TranscriptTimeline(session: session, events: [recording, commit("a", "Bed four is stable.", 0, at: 1000, in: session),
                                                                   commit("b", "Bed seven needs a new drip.", 2000, at: 3000, in: session)])
        let hypothesis = TranscriptTimeline(session: run, events: [commit("x", "bed four is stable", 0, at: 1200, in: run),
                                                                   commit("y", "bed seven needs new drip", 2000, at: 3400, in: run)])
        let comparison = TranscriptComparison(source: source, run: hypothesis, thresholds: .init(maxWordErrorRate: 0.05))
        #expect(comparison.wordErrorRate == 1.0 / 10)
        #expect(comparison.segments.map(\.deletions) == [0, 1])
        #expect(comparison.segments.map(\.runSegment) == ["x", "y"])
        #expect(comparison.segments.map(\.commitDriftMilliseconds) == [200, 400])
        #expect(comparison.segments.map(\.commitLatencyMilliseconds) == [300, 500])  // each commit's time less its segment's end
        #expect(comparison.failures.first?.contains("worst segment b") == true)
    }

    @Test func commandLinesSplitAsAShellWouldWithoutExpanding() throws {
        #expect(try CommandLineWords.split(#"python3 'tools/asr/a b.py' --x "say \"hi\"" \$HOME"#)
                == ["python3", "tools/asr/a b.py", "--x", #"say "hi""#, "$HOME"])
        #expect(throws: CommandLineWords.Unparseable.self) { try CommandLineWords.split("python3 'open") }
        #expect(throws: CommandLineWords.Unparseable.self) { try CommandLineWords.split("   ") }
    }
}
