import Compliance
import EventLog
import Foundation
import Hummingbird
import Projections
import Synchronization
import SessionModel
import TestSupport
import Testing

/// Every operation of docs/openapi.yaml either reads a person's data, and then leaves exactly one record in the
/// access log naming the token's actor and the request's purpose, or is listed here with why it reads none:
/// an operation the table does not name fails, so that a new route cannot slip past the access log.
@Suite struct ReadAccessTableTests {
    enum Access {
        /// Reads session content: `request` (a URI, its placeholders `{session}` and `{subject}` filled) leaves one
        /// record whose command is `command`.
        case records(_ command: String, request: String)
        /// Returns no session content, for the reason given.
        case noContent(_ why: String)
    }

    static let table: [String: Access] = [
        "GET /healthz": .noContent("whether the server answers"),
        "GET /readyz": .noContent("whether the store answers"),
        "GET /metrics": .noContent("counters and timings"),
        "POST /v1/events": .noContent("appends; answers counts and positions"),
        "POST /v1/sessions/{session}/runs": .noContent("stores an app's run of a session; answers its id and counts"),
        "GET /v1/events": .records("tail", request: "/v1/events?after=0"),
        "GET /v1/sessions": .noContent("the session list: ids, times, counts, statuses, subject hashes and labels"),
        "GET /v1/sessions/{session}": .noContent("one row of the session list"),
        "GET /v1/sessions/{session}/transcript": .records("transcript", request: "/v1/sessions/{session}/transcript"),
        "GET /v1/sessions/{session}/live": .noContent("a recording client's WebSocket: it sends events and gets positions back"),
        "GET /v1/sessions/{session}/export": .records("export srt", request: "/v1/sessions/{session}/export?format=srt"),
        "GET /v1/export": .records("export csv", request: "/v1/export?format=csv&subject={subject}"),
        "GET /v1/subjects/{subject}/bundle": .records("export bundle", request: "/v1/subjects/{subject}/bundle"),
        "GET /v1/sessions/{session}/audio": .records("audio", request: "/v1/sessions/{session}/audio?format=flac"),
        "GET /v1/sessions/{session}/report": .records("report", request: "/v1/sessions/{session}/report?audio=false"),
        "GET /v1/audit/check": .noContent("violations: session ids, rules and times"),
        "GET /v1/sessions/{session}/proofs/{event}": .noContent("hashes of an inclusion proof"),
        "GET /v1/records/{position}/proof": .noContent("hashes of an inclusion proof"),
        "GET /v1/runs": .records("runs", request: "/v1/runs"),
        "GET /v1/compare": .records("compare", request: "/v1/compare?baseline=v1&candidate=v2&resamples=200"),
        "GET /v1/integrity": .noContent("the store's verifications and checkpoints"),
        "POST /v1/integrity/verify": .noContent("verifies the log; answers counts and hashes"),
        "GET /v1/checkpoint": .noContent("a signed tree head"),
        "POST /v1/checkpoint/consistency": .noContent("hashes of a consistency proof"),
        "GET /v1/checkpoint/verifier-key": .noContent("the log's public key"),
        "GET /v1/subjects/{subject}/consent": .noContent("the consent trail, the audit's own record of a person's choices"),
    ]

    /// Every operation of docs/openapi.yaml, as `METHOD /path`.
    static func documentedOperations() throws -> [String] {
        let document = try String(contentsOf: RepositoryFixtures.root.deletingLastPathComponent().appendingPathComponent("docs/openapi.yaml"),
                                  encoding: .utf8)
        var operations: [String] = []
        var path: String?
        for line in document.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("  "), !line.hasPrefix("   ") {
                path = nil
            } else if let path, let method = ["get", "put", "post", "delete", "patch", "head"].first(where: { line == "    \($0):" }) {
                operations.append("\(method.uppercased()) \(path)")
            }
            if !line.hasPrefix(" "), !line.isEmpty, line != "paths:" { path = nil }
        }
        return operations
    }

    @Test func everyOperationOfTheOpenAPIDocumentIsInTheAccessTable() throws {
        let operations = try Self.documentedOperations()
        #expect(operations.count >= 20, "the document's operations were found: \(operations)")
        for operation in operations {
            #expect(Self.table[operation] != nil, "\(operation) is not in the access table: say whether it reads a person's data")
        }
        #expect(Set(Self.table.keys) == Set(operations), "the table names operations the document does not have")
    }

    @Test(.timeLimit(.minutes(5)))
    func everyOperationThatReadsAPersonsDataLeavesExactlyOneRecordNamingTheActorAndThePurpose() async throws {
        try await withServer { fixture in
            try await RunRouteTests.store(fixture.log)
            let access = AccessLog(log: fixture.log)
            let runner = ProjectionRunner(log: fixture.log)
            try runner.catchUp()
            let session = try #require(try runner.sessions().first { $0.runOf == nil && !$0.recordings.isEmpty }?.session)
            let subject = String(repeating: "07", count: 32)
            for (operation, row) in Self.table.sorted(by: { $0.key < $1.key }) {
                guard case .records(let command, let template) = row else { continue }
                let purpose = "table row \(operation)"
                let uri = template.replacingOccurrences(of: "{session}", with: session.uuidString.lowercased())
                    .replacingOccurrences(of: "{subject}", with: subject)
                    + (template.contains("?") ? "&" : "?") + "purpose=" + purpose.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                let before = try access.entries().count
                if command == "tail" {
                    let log = fixture.log
                    try await Self.openTail(uri, fixture: fixture, until: { try AccessLog(log: log).entries().count > before })
                } else {
                    try await fixture.test { client async throws -> Void in
                        let answer = try await client.execute(uri: uri, method: .get, headers: fixture.bearer(.read))
                        #expect(answer.status == .ok, "\(operation): \(answer.text)")
                    }
                }
                let added = try access.entries().dropFirst(before)
                #expect(added.count == 1, "\(operation) left \(added.count) records")
                #expect(added.first?.command == command, "\(operation)")
                #expect(added.first?.actor.hasPrefix("token read") == true, "\(operation): \(added.first?.actor ?? "none")")
                #expect(added.first?.purpose == purpose, "\(operation)")
            }
        }
    }

    @Test func aReadTheAccessPolicyRefusesLeavesNoRecordAndReturnsNothing() async throws {
        try await withServer { fixture in
            let dana = sessionLines(subject: "dana")
            try await fixture.test { client async throws -> Void in
                #expect(try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest),
                                                 body: ByteBuffer(string: dana.body)).status == .ok)
            }
            _ = try await AccessLog(log: fixture.log).setPolicy(AccessPolicy(purposeRequired: true), at: ServerFixture.now)
            let before = try AccessLog(log: fixture.log).entries().count
            try await fixture.test { client async throws -> Void in
                for uri in ["/v1/sessions/\(dana.session)/transcript", "/v1/sessions/\(dana.session)/export", "/v1/subjects/dana/bundle"] {
                    let refused = try await client.execute(uri: uri, method: .get, headers: fixture.bearer(.read))
                    #expect(refused.status == .badRequest, "\(uri)")
                    #expect(refused.text.contains("purpose") && !refused.text.contains("Hello world"), "\(uri): \(refused.text)")
                }
                #expect(try await client.execute(uri: "/v1/sessions/\(dana.session)/transcript?purpose=audit+42", method: .get,
                                                 headers: fixture.bearer(.read)).status == .ok)
            }
            #expect(try AccessLog(log: fixture.log).entries().dropFirst(before).map(\.purpose) == ["audit 42"])
        }
    }

    /// Opens the log's tail, which never ends by itself, and cancels the request once `recorded` says its record is in: the
    /// tail must then end (a client gone ends it on the server too), within 30 seconds.
    static func openTail(_ uri: String, fixture: ServerFixture, until recorded: @escaping @Sendable () throws -> Bool) async throws {
        let headers = fixture.bearer(.read)
        let client = RouterClient(fixture.server.router())
        let ended = Atomic(false)
        let tail = Task {
            _ = try? await client.execute(uri: uri, method: .get, headers: headers)
            ended.store(true, ordering: .sequentiallyConsistent)
        }
        var deadline = ContinuousClock.now + .seconds(60)
        while try !recorded(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        tail.cancel()
        // Polled, not awaited: a tail that did not end would hold the test forever.
        deadline = ContinuousClock.now + .seconds(30)
        while !ended.load(ordering: .sequentiallyConsistent), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let finished = ended.load(ordering: .sequentiallyConsistent)
        #expect(finished, "the tail went on after its request was cancelled")
    }
}
