@testable import Compliance
import EventLog
import Foundation
import Ingest
import Projections
import SessionLog
import SessionModel
import Testing
import TestSupport
import TimeCoding

/// Legal holds: they stop erasure and retention while in force, are listed with their release, and
/// `audit check` reports one forgotten past its review date.
@Suite struct LegalHoldTests {
    static let now = RFC3339Time.milliseconds("2026-12-01T00:00:00Z")

    static func subject(_ raw: String, in log: EventLog) -> SubjectHash { SubjectHash(bytes: log.identifierHash(raw))! }

    /// Expects `body` to throw a ``ComplianceError`` with `code`.
    static func expectRefusal(_ code: ComplianceError.Code, sourceLocation: SourceLocation = #_sourceLocation,
                              _ body: () async throws -> Void) async {
        let error = await #expect(throws: ComplianceError.self, sourceLocation: sourceLocation) { try await body() }
        #expect(error?.code == code, "\(error?.message ?? "")", sourceLocation: sourceLocation)
    }

    static func isErased(_ session: UUID, in log: EventLog) throws -> Bool {
        try log.isErased(SessionStreams.session(session)) == true
    }

    @Test func aHoldOnAPersonRefusesTheirErasureNamingItAndOnceReleasedTheErasureRuns() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let (erased, kept) = try await SubjectErasureTests.ingestSessions(into: log)
            let person = Self.subject("erase-me", in: log)
            let holds = LegalHolds(log: log)
            let hold = try await holds.place(on: .subject(person), reason: "Case 2026-114", actor: "legal", at: Self.now)
            #expect(hold.isOpen && hold.subject == person && hold.sessions.isEmpty)

            let count = try log.eventCount()
            let refusal = await #expect(throws: ComplianceError.self) {
                try await SubjectErasure(log: log).erase(person, at: Self.now + 1)
            }
            #expect(refusal?.code == .held)
            #expect(refusal?.message.contains(hold.id.uuidString.lowercased()) == true)
            #expect(refusal?.message.contains("Case 2026-114") == true)
            #expect(try log.eventCount() == count, "nothing was appended")
            #expect(try erased.allSatisfy { try !Self.isErased($0, in: log) }, "nothing was erased")

            let released = try await holds.release(hold.id, reason: "matter closed", actor: "legal", at: Self.now + 2)
            #expect(!released.isOpen && released.release?.reason == "matter closed")
            let report = try await SubjectErasure(log: log).erase(person, at: Self.now + 3)
            #expect(Set(report.erased) == Set(erased))
            #expect(try erased.allSatisfy { try Self.isErased($0, in: log) })
            #expect(try kept.allSatisfy { try !Self.isErased($0, in: log) })
        }
    }

    @Test func aHoldOnASessionOfAPersonRefusesTheErasureOfThatPerson() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let (erased, _) = try await SubjectErasureTests.ingestSessions(into: log)
            try await LegalHolds(log: log).place(on: .sessions([erased[1]]), reason: "Audit 7", actor: "dpo", at: Self.now)
            await Self.expectRefusal(.held) {
                try await SubjectErasure(log: log).erase(Self.subject("erase-me", in: log), at: Self.now + 1)
            }
            #expect(try erased.allSatisfy { try !Self.isErased($0, in: log) })
        }
    }

    @Test func retentionLeavesHeldSessionsAloneListsThemAsHeldAndPurgesTheRest() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let (erased, kept) = try await SubjectErasureTests.ingestSessions(into: log)
            let hold = try await LegalHolds(log: log).place(on: .sessions([kept[0]]), reason: "Case 9", actor: "legal", at: Self.now)
            let retention = Retention(log: log)
            let plan = try retention.plan(maxAge: 1_000, asOf: Self.now)
            #expect(Set(plan.sessions.map(\.session)) == Set(erased + [kept[1]]))
            #expect(plan.held.map(\.summary.session) == [kept[0]] && plan.held.first?.holds.map(\.id) == [hold.id])

            let applied = try await retention.apply(plan, at: Self.now + 1)
            #expect(applied.plan.held.map(\.summary.session) == [kept[0]])
            #expect(try !Self.isErased(kept[0], in: log))
            #expect(try (erased + [kept[1]]).allSatisfy { try Self.isErased($0, in: log) })
        }
    }

    @Test func retentionReadsTheHoldsAgainWhenItAppliesAPlanMadeBeforeAHoldWasPlaced() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let (erased, kept) = try await SubjectErasureTests.ingestSessions(into: log)
            let retention = Retention(log: log)
            let plan = try retention.plan(maxAge: 1_000, asOf: Self.now)
            #expect(plan.sessions.count == 5 && plan.held.isEmpty)
            try await LegalHolds(log: log).place(on: .subject(Self.subject("keep-me", in: log)), reason: "Case 10", actor: "legal", at: Self.now)

            let applied = try await retention.apply(plan, at: Self.now + 1)
            #expect(Set(applied.plan.held.map(\.summary.session)) == Set(kept))
            #expect(Set(applied.plan.sessions.map(\.session)) == Set(erased))
            #expect(try kept.allSatisfy { try !Self.isErased($0, in: log) })
            #expect(try erased.allSatisfy { try Self.isErased($0, in: log) })
        }
    }

    @Test func aDecisionOnHoldsIsMadeAgainWhenTheAuditStreamChangedUnderIt() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let (_, kept) = try await SubjectErasureTests.ingestSessions(into: log)
            let holds = LegalHolds(log: log)
            var attempts: [Int] = []
            // The first attempt sees no hold; a hold is placed (as by another process) before its append,
            // which must then be refused and the decision made again with the hold in view.
            let seen = try await holds.whileAuditStreamStands { current, version in
                attempts.append(current.count)
                if attempts.count == 1 {
                    try await holds.place(on: .sessions([kept[0]]), reason: "meanwhile", actor: "other", at: Self.now)
                }
                try await AuditStream.append(.retentionPolicySet(RetentionPolicy(maxAge: 1)), at: Self.now, expectedVersion: .exact(version), to: log)
                return current.count
            }
            #expect(attempts == [0, 1] && seen == 1)
        }
    }

    @Test func holdsAreListedInOrderWithTheirReleaseAndARepeatedOrUnknownReleaseIsRefused() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let (erased, kept) = try await SubjectErasureTests.ingestSessions(into: log)
            let holds = LegalHolds(log: log)
            let first = try await holds.place(on: .sessions([erased[0], kept[0], erased[0]]), reason: "A", actor: "x", at: Self.now)
            let second = try await holds.place(on: .subject(Self.subject("keep-me", in: log)), reason: "B", actor: "y",
                                               reviewBy: Self.now + 86_400_000, at: Self.now)
            #expect(first.sessions == [erased[0], kept[0]], "a session named twice is held once")
            try await holds.release(first.id, reason: "done", actor: "x", at: Self.now + 5)
            let all = try holds.all()
            #expect(all.map(\.id) == [first.id, second.id])
            #expect(all[0].release?.at == Self.now + 5 && all[0].release?.actor == "x" && all[1].reviewBy == Self.now + 86_400_000)
            #expect(try holds.open().map(\.id) == [second.id])
            #expect(all[0].position < all[1].position && all[0].release!.position > all[1].position)

            await Self.expectRefusal(.invalidRequest) { try await holds.release(first.id, reason: "again", actor: "x", at: Self.now) }
            await Self.expectRefusal(.unknownHold) { try await holds.release(UUID(), reason: "?", actor: "x", at: Self.now) }
        }
    }

    @Test func aHoldWithoutAReasonOnNothingKnownOrOnErasedDataIsRefused() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let (erased, _) = try await SubjectErasureTests.ingestSessions(into: log)
            let holds = LegalHolds(log: log)
            await Self.expectRefusal(.invalidRequest) { try await holds.place(on: .sessions([erased[0]]), reason: "  ", actor: "x", at: Self.now) }
            await Self.expectRefusal(.invalidRequest) {
                try await holds.place(on: .sessions([erased[0]]), reason: "A", actor: "x", reviewBy: Self.now - 1, at: Self.now)
            }
            await Self.expectRefusal(.unknownSession) { try await holds.place(on: .sessions([UUID()]), reason: "A", actor: "x", at: Self.now) }
            await Self.expectRefusal(.unknownSubject) {
                try await holds.place(on: .subject(Self.subject("nobody", in: log)), reason: "A", actor: "x", at: Self.now)
            }
            try await SubjectErasure(log: log).erase(Self.subject("erase-me", in: log), at: Self.now)
            await Self.expectRefusal(.unknownSubject) {
                try await holds.place(on: .subject(Self.subject("erase-me", in: log)), reason: "late", actor: "x", at: Self.now)
            }
            await Self.expectRefusal(.unknownSession) { try await holds.place(on: .sessions([erased[2]]), reason: "late", actor: "x", at: Self.now) }
            #expect(try holds.all().isEmpty)
        }
    }

    @Test func auditCheckReportsAHoldPastItsReviewDateAndNoRetentionExcessForWhatItKeeps() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let (_, kept) = try await SubjectErasureTests.ingestSessions(into: log)
            let retention = Retention(log: log)
            try await retention.setPolicy(RetentionPolicy(maxAge: 1_000), at: Self.now)
            let holds = LegalHolds(log: log)
            let hold = try await holds.place(on: .subject(Self.subject("keep-me", in: log)), reason: "Case 11", actor: "legal",
                                             reviewBy: Self.now + 1_000, at: Self.now)
            func rules(asOf: Int64) throws -> [(Violation.Rule, UUID)] {
                try ViolationCheck.checkedBothWays(log, asOf: asOf, sessions: kept).map { ($0.rule, $0.session) }
            }
            let before = try rules(asOf: Self.now + 1_000)
            #expect(!before.contains { $0.0 == .holdReviewOverdue })
            #expect(before.filter { $0.0 == .retentionExceeded }.count == 3, "the sessions of erase-me, not those held")
            #expect(!before.contains { $0.0 == .retentionExceeded && kept.contains($0.1) })

            let overdue = try ViolationCheck(log: log).run(asOf: Self.now + 1_001).violations.filter { $0.rule == .holdReviewOverdue }
            #expect(overdue.count == 1 && overdue.first?.position == hold.position && overdue.first?.session == SessionStreams.audit.uuid)
            #expect(overdue.first?.detail.contains(hold.id.uuidString.lowercased()) == true)

            try await holds.release(hold.id, reason: "closed", actor: "legal", at: Self.now + 2_000)
            let after = try rules(asOf: Self.now + 3_000)
            #expect(!after.contains { $0.0 == .holdReviewOverdue })
            #expect(after.filter { $0.0 == .retentionExceeded }.count == 5, "released, the held sessions are past retention too")
        }
    }
}
