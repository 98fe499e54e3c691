import Compliance
import EventLog
import Foundation
import Ingest
import SessionLog
import SessionModel
import Testing
import TestSupport
import TimeCoding

/// One session's NDJSON lines, written compactly: `line(type, at-seconds, extra fields)`.
struct SessionScript {
    let session = UUID()
    let subject: String
    var lines: [String] = []

    init(subject: String, startedAt second: Int = 0) {
        self.subject = subject
        add("session.started", second, #""subject":"\#(subject)","locale":"en""#)
    }

    mutating func add(_ type: String, _ second: Int, _ fields: String = "") {
        let time = String(format: "2026-03-01T10:%02d:%02d.000Z", second / 60, second % 60)
        lines.append(#"{"type":"\#(type)","session":"\#(session.uuidString.lowercased())","at":"\#(time)"\#(fields.isEmpty ? "" : "," + fields)}"#)
    }

    mutating func grant(_ consent: String, _ second: Int) {
        add("consent.granted", second, #""subject":"\#(subject)","consent_type":"\#(consent)","method":"in_app_prompt""#)
    }

    mutating func revoke(_ consent: String, _ second: Int) {
        add("consent.revoked", second, #""subject":"\#(subject)","consent_type":"\#(consent)","method":"settings""#)
    }

    mutating func record(_ second: Int) {
        add("recording.started", second, #""recording":"r1","sample_rate":16000,"channels":1"#)
    }

    mutating func commit(_ segment: String, _ second: Int) {
        add("transcript.committed", second, #""segment":"\#(segment)","text":"words","start_ms":0,"end_ms":900"#)
    }

    mutating func play(_ second: Int) {
        add("playback.started", second, #""recording":"r1","position_ms":0"#)
    }

    mutating func end(_ second: Int) { add("session.ended", second) }
}

extension ViolationCheck {
    /// The whole log's violations, once each of `sessions` (and each session they name) was checked alone
    /// (``run(session:asOf:)``, what a session's report reads) and found to have exactly its share of them.
    static func checkedBothWays(_ log: EventLog, asOf: Int64? = nil, sessions: [UUID] = []) throws -> [Violation] {
        let whole = try ViolationCheck(log: log).run(asOf: asOf)
        for session in Set(sessions + whole.violations.map(\.session)) where !SessionStreams.holdsStoreEvents(session) {
            let alone = try ViolationCheck(log: log).run(session: session, asOf: asOf)
            #expect(alone.violations == whole.violations.filter { $0.session == session }, "session \(session)")
            #expect(alone.asOf == whole.asOf)
        }
        return whole.violations
    }
}

@Suite struct ViolationCheckTests {
    /// The violations found in a store holding `scripts`, as (rule, session) pairs.
    static func check(_ scripts: [SessionScript], asOf: Int64? = nil,
                      before: ((EventLog) async throws -> Void)? = nil) async throws -> [Violation] {
        try await withTemporaryStore { store in
            let log = try store.create()
            try await before?(log)
            _ = try await SessionIngest(log: log).ingest(Data(scripts.flatMap(\.lines).joined(separator: "\n").utf8))
            return try ViolationCheck.checkedBothWays(log, asOf: asOf, sessions: scripts.map(\.session))
        }
    }

    @Test func recordingWithoutAudioConsentIsReportedAndRecordingAfterAGrantIsNot() async throws {
        var breaks = SessionScript(subject: "a")
        breaks.grant("transcription", 1)
        breaks.record(2)
        var keeps = SessionScript(subject: "b")
        keeps.grant("audio_recording", 1)
        keeps.record(2)
        let found = try await Self.check([breaks, keeps])
        #expect(found.map(\.rule) == [.recordingWithoutConsent])
        #expect(found.first?.session == breaks.session)
        #expect(found.first?.detail.contains("recording.started") == true)
    }

    @Test func aSessionClockGoingBackwardsBeyondTheToleranceIsReportedOnceWithACount() async throws {
        var breaks = SessionScript(subject: "a", startedAt: 10)
        breaks.grant("transcription", 11)
        breaks.commit("s1", 7)  // 4 s before the grant
        breaks.commit("s2", 6)
        breaks.end(12)
        var skewed = SessionScript(subject: "b", startedAt: 10)
        skewed.grant("transcription", 11)
        skewed.commit("s1", 9)  // 2 s back: within the tolerance
        skewed.end(12)
        let found = try await Self.check([breaks, skewed]).filter { $0.rule == .clockWentBackwards }
        #expect(found.map(\.session) == [breaks.session])
        #expect(found.first?.detail.contains("4000 ms before an earlier event") == true)
        #expect(found.first?.detail.contains("1 more such event followed") == true)
    }

    @Test func transcriptsWithoutTranscriptionConsentAreReportedOncePerSessionWithACount() async throws {
        var breaks = SessionScript(subject: "a")
        breaks.commit("s1", 1)
        breaks.commit("s2", 2)
        breaks.commit("s3", 3)
        var keeps = SessionScript(subject: "b")
        keeps.grant("transcription", 1)
        keeps.commit("s1", 2)
        let found = try await Self.check([breaks, keeps])
        #expect(found.map(\.rule) == [.transcriptWithoutConsent])
        #expect(found.first?.session == breaks.session)
        #expect(found.first?.detail.contains("2 more such events followed") == true)
    }

    @Test func playbackWithoutAudioConsentIsReported() async throws {
        var breaks = SessionScript(subject: "a")
        breaks.play(1)
        var keeps = SessionScript(subject: "b")
        keeps.grant("audio_recording", 1)
        keeps.play(2)
        let found = try await Self.check([breaks, keeps])
        #expect(found.map(\.rule) == [.playbackWithoutConsent])
        #expect(found.first?.session == breaks.session)
    }

    @Test func eventsAfterARevocationMidSessionAreReportedFromTheFirstWithHowManyFollowed() async throws {
        var breaks = SessionScript(subject: "a")
        breaks.grant("transcription", 1)
        breaks.commit("s1", 2)
        breaks.revoke("transcription", 3)
        breaks.commit("s2", 4)
        breaks.commit("s3", 5)
        breaks.end(6)  // ending needs no consent
        var regranted = SessionScript(subject: "b")
        regranted.grant("transcription", 1)
        regranted.revoke("transcription", 2)
        regranted.grant("transcription", 3)
        regranted.commit("s1", 4)
        let found = try await Self.check([breaks, regranted])
        #expect(found.map(\.rule) == [.eventAfterRevocation])
        #expect(found.first?.session == breaks.session)
        #expect(found.first?.position == 4)  // started, grant, commit, revocation, then this commit (the consent copies follow the session)
        #expect(found.first?.detail.contains("1 more such event followed") == true)
    }

    /// A subject's consent holds across its sessions: given in one, used in another, revoked in a third. Each
    /// session checked alone (a report) finds what the whole check finds for it, the copies of consents given
    /// elsewhere counted where their originals are.
    @Test func consentGivenInOneSessionOfASubjectCoversItsOtherSessionsUntilRevokedInAThird() async throws {
        var grants = SessionScript(subject: "c")
        grants.grant("transcription", 1)
        grants.end(2)
        var uses = SessionScript(subject: "c", startedAt: 3)
        uses.commit("s1", 4)
        var revokes = SessionScript(subject: "c", startedAt: 5)
        revokes.revoke("transcription", 6)
        var usesAfter = SessionScript(subject: "c", startedAt: 7)
        usesAfter.commit("s1", 8)
        var stranger = SessionScript(subject: "d", startedAt: 9)
        stranger.commit("s1", 10)
        let found = try await Self.check([grants, uses, revokes, usesAfter, stranger])
        #expect(found.map(\.rule) == [.eventAfterRevocation, .transcriptWithoutConsent])
        #expect(found.map(\.session) == [usesAfter.session, stranger.session])
    }

    @Test func aGrantGivenAfterTheUseItCoversByTheClientsClockIsReported() async throws {
        var breaks = SessionScript(subject: "a")
        breaks.grant("audio_recording", 10)  // stored first, but given at 10 s
        breaks.record(5)                     // recording began at 5 s
        var keeps = SessionScript(subject: "b")
        keeps.grant("audio_recording", 5)
        keeps.record(5)
        let all = try await Self.check([breaks, keeps])
        #expect(all.filter { $0.rule == .clockWentBackwards }.map(\.session) == [breaks.session], "its clock also stepped back 5 s")
        let found = all.filter { $0.rule != .clockWentBackwards }
        #expect(found.map(\.rule) == [.consentGrantedAfterUse])
        #expect(found.first?.session == breaks.session)
        #expect(found.first?.detail.contains("5000 ms before") == true)
    }

    @Test func aSessionKeptPastTheRetentionPeriodIsReportedAtTheBoundaryAndNotBefore() async throws {
        var session = SessionScript(subject: "a")
        session.end(0)  // ended 2026-03-01T10:00:00Z
        let ended = RFC3339Time.milliseconds("2026-03-01T10:00:00Z")
        let setPolicy: (EventLog) async throws -> Void = { log in
            try await Retention(log: log).setPolicy(RetentionPolicy(maxAge: 86_400_000), at: 0)
        }
        let atTheBoundary = try await Self.check([session], asOf: ended + 86_400_000, before: setPolicy)
        #expect(atTheBoundary.isEmpty)
        let justPast = try await Self.check([session], asOf: ended + 86_400_001, before: setPolicy)
        #expect(justPast.map(\.rule) == [.retentionExceeded])
        let withoutPolicy = try await Self.check([session], asOf: ended + 10 * 86_400_000)
        #expect(withoutPolicy.isEmpty)
    }

    @Test func everyRuleHasARowInTheComplianceDocument() throws {
        let path = RepositoryFixtures.root.deletingLastPathComponent().appendingPathComponent("docs/COMPLIANCE.md").path
        let document = try String(contentsOfFile: path, encoding: .utf8)
        for rule in Violation.Rule.allCases { #expect(document.contains("`\(rule.rawValue)`"), "\(rule.rawValue) is not documented") }
    }
}

enum RFC3339Time {
    static func milliseconds(_ text: String) -> Int64 {
        Int64((ISO8601DateFormatter().date(from: text)!.timeIntervalSince1970 * 1000).rounded())
    }
}
