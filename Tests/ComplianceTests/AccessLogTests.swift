@testable import Compliance
import EventLog
import Exports
import Foundation
import HexCoding
import Output
import SessionLog
import SessionModel
import Testing
import TestSupport
import TimeCoding

/// The access log: every read recorded with who, why, what and which sessions, listed and filtered; a
/// policy that requires a purpose refuses a read without one before anything is appended.
@Suite struct AccessLogTests {
    static let now = RFC3339Time.milliseconds("2026-12-01T00:00:00Z")

    @Test func readsAndExportsAreListedInOrderAndByPersonSessionOrReader() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let (erased, kept) = try await SubjectErasureTests.ingestSessions(into: log)
            let access = AccessLog(log: log)
            try await access.record(AccessRead(actor: "alice", purpose: "QA", command: "transcript", sessions: [kept[0]]), at: Self.now)
            try await access.record(AccessRead(actor: "bob", command: "compare", sessions: [erased[0], kept[1]]), at: Self.now + 1)
            try await access.record(ExportPerformed(actor: "carol", format: "json", sessions: [erased[1]], purpose: "Art. 15 request"), at: Self.now + 2)

            let all = try access.entries()
            #expect(all.map(\.command) == ["transcript", "compare", "export json"])
            #expect(all.map(\.actor) == ["alice", "bob", "carol"] && all.map(\.purpose) == ["QA", nil, "Art. 15 request"])
            #expect(all.map(\.at) == [Self.now, Self.now + 1, Self.now + 2] && all[0].position < all[1].position)

            let keepMe = SubjectHash(bytes: log.identifierHash("keep-me"))!
            #expect(try access.entries(subject: keepMe).map(\.command) == ["transcript", "compare"])
            #expect(try access.entries(session: erased[1]).map(\.actor) == ["carol"])
            #expect(try access.entries(actor: "bob").map(\.sessions) == [[erased[0], kept[1]]])
            #expect(try access.entries(subject: keepMe, actor: "alice").count == 1)
        }
    }

    @Test func aPolicyRequiringAPurposeRefusesAReadWithoutOneAndAppendsNothing() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let (_, kept) = try await SubjectErasureTests.ingestSessions(into: log)
            let access = AccessLog(log: log)
            #expect(try access.policy().purposeRequired == false)
            try await access.setPolicy(AccessPolicy(purposeRequired: true), at: Self.now)
            let count = try log.eventCount()
            for purpose in [nil, "", "  "] {
                let refusal = await #expect(throws: ComplianceError.self) {
                    try await access.record(AccessRead(actor: "a", purpose: purpose, command: "events", sessions: [kept[0]]), at: Self.now)
                }
                #expect(refusal?.code == .purposeRequired && refusal?.message.contains("--purpose") == true)
            }
            #expect(try log.eventCount() == count)
            try await access.record(AccessRead(actor: "a", purpose: "support ticket 12", command: "events", sessions: [kept[0]]), at: Self.now)
            try await access.setPolicy(AccessPolicy(purposeRequired: false), at: Self.now + 1)
            try await access.record(AccessRead(actor: "a", command: "events", sessions: [kept[0]]), at: Self.now + 2)
            #expect(try access.entries().map(\.purpose) == ["support ticket 12", nil])
        }
    }

    @Test func findingThePolicyDecodesABoundedNumberOfAuditEventsWhateverTheNumberOfReadsRecorded() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let (_, kept) = try await SubjectErasureTests.ingestSessions(into: log)
            let access = AccessLog(log: log)
            let view = AccessPolicyView(log: log)
            try await access.setPolicy(AccessPolicy(purposeRequired: true), at: Self.now)
            var mostDecoded = 0
            for read in 0..<(AccessPolicyView.foldEvery * 6) {
                if read == AccessPolicyView.foldEvery * 3 { try await access.setPolicy(AccessPolicy(purposeRequired: false), at: Self.now) }
                try await access.record(AccessRead(actor: "a", purpose: "QA", command: "events", sessions: [kept[0]]), at: Self.now + Int64(read))
                let (policy, decoded) = try view.current()
                #expect(policy?.purposeRequired == (read < AccessPolicyView.foldEvery * 3), "read \(read)")
                mostDecoded = max(mostDecoded, decoded)
            }
            #expect(mostDecoded <= AccessPolicyView.foldEvery, "the reader decoded \(mostDecoded) audit events")
            let audit = try #require(try log.streamMetadata(SessionStreams.audit)).version
            #expect(audit > UInt64(AccessPolicyView.foldEvery * 6), "the audit stream holds every read")
            #expect(try log.readView(AccessPolicyView.name) { try $0.checkpoint() } != nil, "the view was written")
            #expect(try access.policy().purposeRequired == false)

            try log.dropView(AccessPolicyView.name)  // a view is derived data: without it, the policy is found from the stream
            #expect(try view.current().policy == AccessPolicy(purposeRequired: false))
            #expect(try view.current().decoded <= AccessPolicyView.foldEvery, "the first reader after the drop wrote the view again")
        }
    }

    @Test func aSessionsCheckDecodesTheStoresRuleEventsNotEveryReadRecorded() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let (_, kept) = try await SubjectErasureTests.ingestSessions(into: log)
            let access = AccessLog(log: log)
            let view = RuleEventsView(log: log)
            let holdAt = RuleEventsView.foldEvery * 2
            var mostDecoded = 0
            for read in 0..<(RuleEventsView.foldEvery * 4) {
                if read == holdAt {
                    _ = try await LegalHolds(log: log).place(on: .sessions([kept[1]]), reason: "Case 7", actor: "dpo", reviewBy: Self.now + 10, at: Self.now)
                }
                try await access.record(AccessRead(actor: "a", command: "events", sessions: [kept[0]]), at: Self.now + Int64(read))
                let (events, decoded) = try view.events()
                #expect(events.map(\.event.type) == (read >= holdAt ? [.holdPlaced] : []), "read \(read)")
                mostDecoded = max(mostDecoded, decoded)
            }
            #expect(mostDecoded <= RuleEventsView.foldEvery + 1, "a check decoded \(mostDecoded) audit events")
            #expect(try log.readView(RuleEventsView.name) { try $0.checkpoint() } != nil, "the view was written")
            let whole = try ViolationCheck(log: log).run(asOf: Self.now + 1_000_000)
            #expect(whole.violations.contains { $0.rule == .holdReviewOverdue }, "the hold's review is overdue: a rule read it")
            for session in kept {
                let one = try ViolationCheck(log: log).run(session: session, asOf: Self.now + 1_000_000)
                #expect(one.violations == whole.violations.filter { $0.session == session })
                #expect(one.eventsRead < UInt64(RuleEventsView.foldEvery * 4), "the reads recorded are not folded: \(one.eventsRead)")
            }
            try log.dropView(RuleEventsView.name)  // derived data: without it, the events are found from the stream
            #expect(try view.events().events.map(\.event.type) == [.holdPlaced])
        }
    }

    @Test func withNoPolicyEverSetNoPurposeIsRequiredAndTheViewSaysSo() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let (_, kept) = try await SubjectErasureTests.ingestSessions(into: log)
            let access = AccessLog(log: log)
            for read in 0..<(AccessPolicyView.foldEvery * 2) {
                try await access.record(AccessRead(actor: "a", command: "events", sessions: [kept[0]]), at: Self.now + Int64(read))
            }
            let (policy, decoded) = try AccessPolicyView(log: log).current()
            #expect(policy == nil && decoded <= AccessPolicyView.foldEvery)
            #expect(try access.policy().purposeRequired == false)
        }
    }

    @Test(.enabled(if: ProtobufDecoder.isAvailable, "needs python3 with protobuf and grpcio-tools"))
    func theAccessPolicyRowDecodesWithGooglesProtobufAndTheProtoFile() throws {
        let row = AccessPolicyView.Row(auditEvents: 70_000, policy: AccessPolicy(purposeRequired: true))
        let lines = try ProtobufDecoder.decode("view:access-policy\t" + Hex.string(row.rowBytes) + "\n")
        let line = try #require(lines.first)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(json["canonical"] as? Bool == true, "not canonical protobuf: \(json)")
        let message = try #require(json["message"] as? [String: Any])
        #expect(message["audit_events"] as? String == "70000")  // 64-bit integers are strings in protobuf's JSON
        #expect(message["policy_set"] as? Bool == true && message["purpose_required"] as? Bool == true)
        #expect(try AccessPolicyView.Row(row: row.rowBytes) == row)
    }

    @Test func theAccessLogOutlivesTheErasureOfThePersonWhoseDataWasRead() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let (erased, _) = try await SubjectErasureTests.ingestSessions(into: log)
            let access = AccessLog(log: log)
            try await access.record(AccessRead(actor: "alice", command: "audio", sessions: [erased[0]]), at: Self.now)
            try await SubjectErasure(log: log).erase(SubjectHash(bytes: log.identifierHash("erase-me"))!, at: Self.now + 1)
            #expect(try access.entries(session: erased[0]).map(\.command) == ["audio"])
        }
    }
}
