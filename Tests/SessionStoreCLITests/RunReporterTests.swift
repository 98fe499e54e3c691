import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SessionStoreTesting
import Testing
import TestSupport

/// The way back from an app's tests (docs/APP-TESTING.md): `RunReporter` sends what the app transcribed of each
/// fixture of a pack to `serve` on the built binary, and the store compares the app's versions as it compares
/// recognisers.
@Suite struct RunReporterTests {
    @Test(.timeLimit(.minutes(10)))
    func twoAppVersionsReportedOverAPackAreComparedByTheirLabelsAndAResendStoresNothing() async throws {
        try await withCLI { cli in
            #expect(try await cli.runInProcess(["init"]).status == 0)
            #expect(try await cli.runInProcess(["demo"]).status == 0)
            let packed = try await cli.runInProcess(["pack", "--all", "--out", cli.path("pack")])
            try #require(packed.status == 0, "\(packed.stderr)")
            let ingest = try await cli.runInProcess(["tokens", "create", "--scope", "ingest", "--name", "ui tests"]).stdout.split(separator: "\n")[0]
            let read = try await cli.runInProcess(["tokens", "create", "--scope", "read", "--name", "reader"]).stdout.split(separator: "\n")[0]
            let (serving, url) = try await offThePool { try ServeCommandTests.serve(cli) }
            defer { serving.send(SIGKILL) }
            let reporter = RunReporter(server: try #require(URL(string: url)), token: String(ingest))
            let pack = URL(fileURLWithPath: cli.path("pack"))
            let manifest = try FixturePackManifest.load(from: pack)
            try #require(manifest.sessions.count == 6)

            var resend: (RunReport, UUID)?
            for entry in manifest.sessions {
                let expected = try FixtureExpectation.load(from: pack.appendingPathComponent(entry.expectation))
                let words = expected.transcript.split(separator: " ")
                // Version 1.1 loses every fourth word.
                let lossy = words.enumerated().filter { ($0.offset + 1) % 4 != 0 }.map(\.element).joined(separator: " ")
                for (label, transcript) in [("app 1.0", expected.transcript), ("app 1.1", lossy)] {
                    let report = RunReport(label: label, system: "DictationFixtureTests", transcript: transcript)
                    let receipt = try await reporter.send(report, of: entry.session)
                    #expect(receipt.source == entry.session && receipt.run == report.run && receipt.appended > 0 && receipt.duplicates == 0)
                    resend = (report, entry.session)
                }
            }
            let (report, session) = try #require(resend)
            let again = try await reporter.send(report, of: session)
            #expect(again.appended == 0 && again.duplicates > 0, "a resend stores nothing: \(again)")

            var request = URLRequest(url: try #require(URL(string: url + "/v1/compare?baseline=app%201.0&candidate=app%201.1")))
            request.setValue("Bearer \(read)", forHTTPHeaderField: "Authorization")
            let (body, _) = try await URLSession.shared.data(for: request)
            let comparison = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            #expect((comparison["sessions"] as? [Any])?.count == 6, "\(String(decoding: body, as: UTF8.self))")
            #expect((comparison["difference"] as? Double ?? 0) > 0.1, "version 1.1 drops a quarter of the words")

            let refused = await #expect(throws: RunReportError.self) {
                try await RunReporter(server: URL(string: url)!, token: "sst_not-a-token").send(report, of: session)
            }
            #expect(refused?.status == 401, "\(String(describing: refused))")
            let unknown = await #expect(throws: RunReportError.self) {
                try await reporter.send(report, of: UUID())
            }
            #expect(unknown?.status == 404 && unknown?.description.contains("no session") == true, "\(String(describing: unknown))")
        }
    }
}
