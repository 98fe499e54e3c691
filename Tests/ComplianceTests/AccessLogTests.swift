import Compliance
import EventLog
import Exports
import Foundation
import SessionLog
import SessionModel
import Testing
import TestSupport

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
            try await Exporter(log: log).recordExport(of: [erased[1]], as: "json", by: "carol", purpose: "Art. 15 request", at: Self.now + 2)

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
