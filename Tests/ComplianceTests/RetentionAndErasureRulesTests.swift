import Compliance
import EventLog
import Foundation
import Ingest
import Migrations
import Projections
import SessionLog
import SessionModel
import Testing
import TestSupport
import TimeCoding

@Suite struct RetentionAndErasureRulesTests {
    static func ingest(_ scripts: [SessionScript], into log: EventLog) async throws {
        _ = try await SessionIngest(log: log).ingest(Data(scripts.flatMap(\.lines).joined(separator: "\n").utf8))
    }

    /// Sessions that ended at 10:00:00 + the given second on 2026-03-01.
    static func endedSessions(_ seconds: [Int]) -> [SessionScript] {
        seconds.map { second in
            var script = SessionScript(subject: "s\(second)")
            script.grant("transcription", 0)
            script.commit("a", 0)
            script.end(second)
            return script
        }
    }

    @Test func aDryRunListsWhatWouldGoAndChangesNothing() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            try await Self.ingest(Self.endedSessions([1, 2, 3]), into: log)
            let asOf = RFC3339Time.milliseconds("2026-03-01T10:00:02Z") + 60_000
            let plan = try Retention(log: log).plan(maxAge: 60_000, asOf: asOf)  // cutoff 10:00:02: ended at :01 goes
            #expect(plan.sessions.count == 1 && plan.cutoff == asOf - 60_000)
            let count = try log.eventCount()
            let sessions = try ProjectionRunner(log: log).sessions()
            #expect(try log.eventCount() == count)
            #expect(try ProjectionRunner(log: log).sessions() == sessions)
            #expect(sessions.allSatisfy { !$0.isShredded })
        }
    }

    @Test func applyingRetentionPurgesExactlyTheSessionsEndedBeforeTheCutoffAndKeepsTheirConsent() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let scripts = Self.endedSessions([1, 2, 3])
            try await Self.ingest(scripts, into: log)
            let retention = Retention(log: log)
            try await retention.setPolicy(RetentionPolicy(maxAge: 60_000), at: 0)
            #expect(try retention.policy() == RetentionPolicy(maxAge: 60_000))
            let asOf = RFC3339Time.milliseconds("2026-03-01T10:00:02Z") + 60_000  // the session ended at :02 is at the boundary: kept
            let plan = try retention.plan(asOf: asOf)
            #expect(plan.sessions.map(\.session) == [scripts[0].session])
            #expect(try await retention.apply(plan, at: asOf).eventPosition != nil)

            #expect(try log.isErased(SessionStreams.session(scripts[0].session)) == true)
            #expect(try log.isErased(SessionStreams.session(scripts[1].session)) == false)
            let runner = ProjectionRunner(log: log)
            try runner.catchUp()
            let purged = try runner.sessions().first { $0.session == scripts[0].session }
            #expect(purged?.status == .purged)
            #expect(try runner.consentEntries(ofSession: scripts[0].session).count == 1)
            #expect(try ViolationCheck.checkedBothWays(log, asOf: asOf, sessions: scripts.map(\.session)).isEmpty)
            #expect(try retention.plan(asOf: asOf).sessions.isEmpty)  // nothing more to do
            // An hour later the session that ended at :02 is past the period: the check says so.
            let later = try ViolationCheck.checkedBothWays(log, asOf: asOf + 3_600_000, sessions: scripts.map(\.session))
            #expect(Set(later.map(\.session)) == [scripts[1].session, scripts[2].session])
            #expect(later.allSatisfy { $0.rule == .retentionExceeded })
        }
    }

    @Test func anInterruptedErasureIsReportedAsReadableErasedDataAndErasingAgainCompletesIt() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            var script = SessionScript(subject: "erase-me")
            script.grant("transcription", 0)
            script.commit("a", 1)
            try await Self.ingest([script], into: log)
            let subject = SubjectHash(bytes: log.identifierHash("erase-me"))!
            // The first step of an erasure, as if the process died before destroying the keys.
            let event = SessionEvent(session: SessionStreams.audit.uuid, occurredAt: 0, payload: .subjectErased(
                SubjectErased(subject: subject, sessions: [script.session])))
            try await log.append([SessionMigrations.codec.encode(event)], to: SessionStreams.audit, keyScope: .audit)
            let found = try ViolationCheck.checkedBothWays(log, sessions: [script.session])
            #expect(found.map(\.rule) == [.erasedDataReadable])
            #expect(found.first?.detail.hasPrefix("3 events are still readable") == true, "\(found)")

            let report = try await SubjectErasure(log: log).erase(subject, at: 1)
            #expect(report.erased == [script.session])
            #expect(try ViolationCheck.checkedBothWays(log, sessions: [script.session]).isEmpty)
            let again = try await SubjectErasure(log: log).erase(subject, at: 2)
            #expect(again.erased.isEmpty && again.alreadyErased == [script.session] && again.eventPosition == nil)
        }
    }

    @Test func durationsAreReadAndWrittenInTheUnitsPeopleUse() {
        #expect(DurationText.milliseconds("90d") == Int64(7_776_000_000))
        #expect(DurationText.milliseconds("12h") == Int64(43_200_000))
        #expect(DurationText.milliseconds("30m") == 1_800_000)
        #expect(DurationText.milliseconds("45s") == 45_000)
        #expect(DurationText.milliseconds("250ms") == 250)
        for bad in ["", "d", "0d", "-1d", "1.5d", "10", "10w", "99999999999999999d"] { #expect(DurationText.milliseconds(bad) == nil, "\(bad)") }
        #expect(DurationText.text(90 * 86_400_000) == "90d")
        #expect(DurationText.text(90_000) == "90s")
        #expect(DurationText.text(86_400_000 + 1) == "1.0d")
    }
}

@Suite struct PartialsRetentionTests {
    @Test func retentionDiscardsTheTranscriptPartialsOfOlderSessionsAndKeepsTheirCommits() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            var old = SessionScript(subject: "a")
            old.grant("transcription", 0)
            old.add("transcript.partial", 1, #""segment":"s1","revision":1,"text":"first guess","start_ms":0,"end_ms":500"#)
            old.add("transcript.partial", 2, #""segment":"s1","revision":2,"text":"second guess","start_ms":0,"end_ms":800"#)
            old.commit("s1", 3)
            old.add("transcript.partial", 4, #""segment":"s2","revision":1,"text":"never committed","start_ms":1000,"end_ms":1500"#)
            old.end(5)
            var recent = SessionScript(subject: "b", startedAt: 0)
            recent.grant("transcription", 0)
            recent.add("transcript.partial", 1, #""segment":"s1","revision":1,"text":"recent guess","start_ms":0,"end_ms":500"#)
            recent.commit("s1", 2)
            _ = try await SessionIngest(log: log).ingest(Data((old.lines + recent.lines).joined(separator: "\n").utf8))
            // `recent` ends a day after `old` (its end line is written a day later by hand).
            let dayLater = #"{"type":"session.ended","session":"\#(recent.session.uuidString.lowercased())","at":"2026-03-02T10:00:05.000Z"}"#
            _ = try await SessionIngest(log: log).ingest(Data(dayLater.utf8))
            let retention = Retention(log: log)
            try await retention.setPolicy(RetentionPolicy(maxAge: 30 * 86_400_000, partialsMaxAge: 86_400_000), at: 0)
            let asOf = RFC3339Time.milliseconds("2026-03-02T10:00:06Z")  // old ended a day and a second ago; recent a second ago
            let runner = ProjectionRunner(log: log)
            try runner.catchUp()
            let before = try #require(try runner.transcript(of: old.session))
            #expect(before.partials.map(\.text) == ["never committed"])

            let found = try ViolationCheck.checkedBothWays(log, asOf: asOf, sessions: [old.session, recent.session])
            #expect(found.map(\.rule) == [.retentionExceeded] && found.first?.session == old.session)
            #expect(found.first?.detail.contains("3 transcript partials are still readable") == true)

            let plan = try retention.plan(asOf: asOf)
            #expect(plan.sessions.isEmpty && plan.partialsSessions.map(\.session) == [old.session])
            #expect(try await retention.apply(plan, at: asOf).eventPosition != nil)

            let stream = SessionStreams.session(old.session)
            #expect(throws: EventLogError.self) { try log.readStream(stream) }  // the partials' key is gone
            let kept = try log.readStream(stream, skippingErased: true) { $0.type }
            #expect(kept == ["session.started", "consent.granted", "transcript.committed", "session.ended"])
            #expect(try log.readStream(SessionStreams.session(recent.session)).count == 5, "a session inside the period keeps its partials")
            let after = try #require(try runner.transcript(of: old.session))
            #expect(after.segments == before.segments && after.partials.isEmpty)
            #expect(try ViolationCheck.checkedBothWays(log, asOf: asOf, sessions: [old.session, recent.session]).isEmpty)
            #expect(try retention.plan(asOf: asOf).partialsSessions.isEmpty, "nothing more to discard")
            let incremental = try runner.transcript(of: old.session)
            try runner.rebuild()
            #expect(try runner.transcript(of: old.session) == incremental, "a rebuild folds the same transcript")
            #expect(try log.verify().isIntact && log.verify().erasedRecords == 3)

            // Erasing the person later destroys both keys of the session.
            try await SubjectErasure(log: log).erase(SubjectHash(bytes: log.identifierHash("a"))!, at: asOf)
            #expect(try log.readStream(stream, skippingErased: true) { $0 }.isEmpty)
        }
    }

    @Test func aStreamCannotStartWithADiscardableEvent() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let refused = await #expect(throws: EventLogError.self) {
                try await log.append([ProposedEvent(type: "note", data: [1], discardable: true)], to: StreamID())
            }
            #expect(refused?.code == .invalidArgument)
        }
    }
}
