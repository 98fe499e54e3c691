import EventLog
import Foundation
@testable import Projections
import SessionModel
import TestSupport
import Testing

@Suite struct ReplayCommandTests {
    static func lastLine(_ text: String) -> String {
        String(text.split(separator: "\n").last ?? "")
    }

    @Test func theSameSessionReplaysToTheSameDigestInTwoStoresAndOnEveryRun() async throws {
        let file = Data(QueryCommandsTests.file.utf8)
        let first = try await withCLI { cli in
            try await cli.runInProcess(["init"])
            try await cli.runInProcess(["ingest", "-"], input: file)
            let one = try await cli.runInProcess(["replay", QueryCommandsTests.session, "--digest"])
            let two = try await cli.runInProcess(["replay", QueryCommandsTests.session, "--digest", "--quiet"])
            #expect(one.status == 0, "\(one.stderr)")
            #expect(one.stdout.split(separator: "\n").count == 7)  // six steps, then the digest
            #expect(Self.lastLine(one.stdout) == two.stdout.trimmingCharacters(in: .newlines))
            return Self.lastLine(one.stdout)
        }
        let second = try await withCLI { cli in
            try await cli.runInProcess(["init"])
            try await cli.runInProcess(["ingest", "-"], input: file)
            return Self.lastLine(try await cli.runInProcess(["replay", QueryCommandsTests.session, "--digest", "--quiet"]).stdout)
        }
        #expect(first == second)
        #expect(first.range(of: "^[0-9a-f]{64}$", options: .regularExpression) != nil)
    }

    @Test func theTraceHasOneLinePerStepWithTheViewsDigest() async throws {
        try await withCLI { cli in
            try await cli.runInProcess(["init"])
            try await cli.runInProcess(["ingest", "-"], input: Data(QueryCommandsTests.file.utf8))
            let trace = cli.directory.appendingPathComponent("trace.ndjson")
            #expect(try await cli.runInProcess(["replay", QueryCommandsTests.session, "--trace", trace.path, "--quiet"]).status == 0)
            let lines = try String(contentsOf: trace, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 6)
            let steps = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
            #expect(steps.map { $0["step"] as? Int } == [1, 2, 3, 4, 5, 6])
            #expect(steps.map { $0["type"] as? String }.first == "session.started")
            #expect(steps.allSatisfy { ($0["views_digest"] as? String)?.count == 64 })
            #expect(steps.map { $0["virtual_ms"] as? Int } == [0, 100, 1000, 2000, 3000, 4000])
        }
    }

    @Test func verifyExitsTwoWithTheFirstDivergentEventWhenAProjectionIsWrong() async throws {
        try await withCLI { cli in
            try await cli.runInProcess(["init"])
            try await cli.runInProcess(["ingest", "-"], input: Data(QueryCommandsTests.file.utf8))
            let clean = try await cli.runInProcess(["replay", QueryCommandsTests.session, "--verify", "--quiet"])
            #expect(clean.status == 0, "\(clean.stderr)")

            let session = UUID(uuidString: QueryCommandsTests.session)!
            do {
                let log = try EventLog.open(at: cli.storePath, key: .keyFile(cli.keyPath), options: .testing)
                let runner = ProjectionRunner(log: log)
                try runner.catchUp()
                var summary = try #require(try runner.sessions().first)
                summary.words = 99
                try log.updateView(ProjectionRunner.sessionsView) { try $0.put(session.wireBytes, summary.rowBytes) }
                try log.close()
            }
            let wrong = try await cli.runInProcess(["replay", QueryCommandsTests.session, "--verify", "--quiet"])
            #expect(wrong.status == 2)
            let report = try JSONSerialization.jsonObject(with: Data(Self.lastLine(wrong.stdout).utf8)) as? [String: Any]
            let divergence = try #require(report?["divergence"] as? [String: Any])
            #expect(divergence["view"] as? String == "sessions")
            #expect(divergence["field"] as? String == "words")
            #expect(divergence["expected"] as? String == "99")
            #expect(divergence["actual"] as? String == "3")
            #expect(divergence["type"] as? String == "transcript.committed")
            #expect(divergence["stream_number"] as? Int == 3)
        }
    }

    @Test func aBadSpeedOrAnUnknownSessionIsRefused() async throws {
        try await withCLI { cli in
            try await cli.runInProcess(["init"])
            try await cli.runInProcess(["ingest", "-"], input: Data(QueryCommandsTests.file.utf8))
            #expect(try await cli.runInProcess(["replay", QueryCommandsTests.session, "--speed", "fast"]).status == 64)
            #expect(try await cli.runInProcess(["replay", QueryCommandsTests.session, "--speed", "-2"]).status == 64)
            let unknown = try await cli.runInProcess(["replay", "0b7e6a34-1111-4222-8333-444455556666"])
            #expect(unknown.status == 65)
            #expect(unknown.stderr.contains("no session"))
        }
    }
}
