import Foundation
import Testing
import TestSupport

/// The web console in a real browser: Debian's chromium driven by chromium-driver and PyPI's selenium
/// (tools/console/browser_check.py), on `serve` over the demo's sessions and a run of one of them. With
/// `CI` set, a missing browser, driver or module fails the test instead of skipping it.
@Suite(.timeLimit(.minutes(10))) struct ConsoleBrowserTests {
    static let enabled = ProcessInfo.processInfo.environment["CI"] != nil
        || (FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver") && pythonCanImport("selenium, requests"))

    @Test(.enabled(if: enabled, "needs chromium, chromium-driver and selenium"))
    func aBrowserLogsInFiltersPlaysSeeksExportsErasesOnlyWhenConfirmedAndWatchesTheLiveTail() async throws {
        try requirePython("selenium, requests")
        try await withCLI { cli in
            let (admin, ingest) = try Self.prepare(cli)
            let (server, url) = try ServeCommandTests.serve(cli)
            let check = RepositoryFixtures.root.deletingLastPathComponent().appendingPathComponent("tools/console/browser_check.py").path
            let checked = try runPython([check, url, admin, ingest, "demo-clinician"], limit: .seconds(400))
            let printed = String(decoding: checked.stdout, as: UTF8.self)
            let last = printed.split(separator: "\n").suffix(3).joined(separator: "\n")
            #expect(checked.status == 0, "\(last)\n\(checked.stderr.suffix(2000))")
            #expect(printed.contains("all checks passed"))
            server.send(SIGTERM)
            #expect(server.wait(limit: .seconds(60)).status == 0)

            // What the browser did is in the store: the erasure, the bundle's export, the console's reads.
            let listed = try cli.run(["sessions", "--format", "json"])
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            #expect(rows.filter { $0["status"] as? String == "erased" }.count == 8, "the demo's six sessions and the two runs are erased")
            let access = try cli.run(["audit", "access", "--format", "json"])
            #expect(access.stdout.contains("bundle"), "the bundle is recorded as an export: \(access.stdout.prefix(600))")
            #expect(access.stdout.contains("console"), "the console's reads are recorded")
            #expect(try cli.run(["verify"]).status == 0)
        }
    }

    /// The demo's sessions, two labelled runs of the longest with words left out, and an admin and an ingest token.
    static func prepare(_ cli: CLIRunner) throws -> (admin: String, ingest: String) {
        let fixtures = RepositoryFixtures.root.deletingLastPathComponent().appendingPathComponent("Fixtures/audio").path
        let demo = try cli.run(["demo", "--fixtures", fixtures])
        try #require(demo.status == 0, "\(demo.stderr)")
        let listed = try cli.run(["sessions", "--format", "json"])
        let sessions = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        let longest = try #require(sessions.max { ($0["words"] as? Int ?? 0) < ($1["words"] as? Int ?? 0) }?["session"] as? String)
        let echo = RepositoryFixtures.root.deletingLastPathComponent().appendingPathComponent("tools/replay/echo_target.py").path
        for (label, flaws) in [("v1", "--drop-word 3"), ("v2", "--drop-every 4")] {
            let drove = try cli.run(["replay", longest, "--drive", "python3 \(echo) \(flaws)", "--with-transcript", "--speed", "max", "--label", label])
            try #require(drove.status == 0, "\(drove.stderr)")
        }
        var tokens: [String] = []
        for scope in ["admin", "ingest"] {
            let made = try cli.run(["tokens", "create", "--scope", scope, "--name", "browser-\(scope)"])
            try #require(made.status == 0, "\(made.stderr)")
            tokens.append(made.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return (tokens[0], tokens[1])
    }
}
