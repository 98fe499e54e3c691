import Foundation
import Testing
import TestSupport

/// A real browser opens a report: Debian's chromium, headless, renders it to a PNG and dumps the DOM
/// after its script ran. Runs where chromium is installed (tools/test installs it in CI, about a minute
/// and a half); with `CI` set, a missing chromium fails the test instead of skipping it.
@Suite(.timeLimit(.minutes(10))) struct ReportBrowserTests {
    static let chromium: String? = {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        return ["chromium", "chromium-browser", "google-chrome"].lazy
            .flatMap { name in directories.map { "\($0)/\(name)" } }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }()
    static let enabled = chromium != nil || ProcessInfo.processInfo.environment["CI"] != nil

    func browse(_ page: URL, _ arguments: [String]) throws -> ChildProcess.Outcome {
        let browser = try #require(Self.chromium, "chromium is not installed (tools/test installs it when CI is set)")
        let profile = Scratch.url("chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        return try ChildProcess.run(URL(fileURLWithPath: browser),
                                    ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                                     "--user-data-dir=\(profile.path)"] + arguments + [page.absoluteString],
                                    limit: .seconds(90))
    }

    @Test(.enabled(if: enabled, "needs chromium"))
    func chromiumRendersTheReportAndItsDOMHoldsEverySegment() async throws {
        try await withCLI { cli in
            try OutputFixture.copy(into: cli)
            let page = cli.directory.appendingPathComponent("report.html")
            #expect(try cli.run(["report", OutputFixture.session, "--out", page.path]).status == 0)

            let screenshot = cli.directory.appendingPathComponent("report.png")
            let shot = try browse(page, ["--window-size=1280,900", "--screenshot=\(screenshot.path)"])
            #expect(!shot.timedOut, "\(shot.stderr)")
            let png = [UInt8](try Data(contentsOf: screenshot))
            try #require(png.count > 24, "no screenshot: \(shot.stderr)")
            #expect(Array(png[0..<8]) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "a PNG")
            let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
            #expect(width == 1280 && height == 900)
            #expect(png.count > 20_000, "a rendered page, not a blank one (\(png.count) bytes)")

            let dump = try browse(page, ["--dump-dom"])
            #expect(dump.status == 0 && !dump.timedOut, "\(dump.stderr)")
            let dom = dump.stdoutText
            for segment in 1...2 { #expect(dom.contains("id=\"segment-\(segment)\""), "segment \(segment) in the DOM") }
            #expect(dom.contains("-- Dose: 5 mg; follow-up in 2 weeks"))
            #expect(dom.contains("class=\"waveform\"") && dom.contains("<audio id=\"recording\""))
        }
    }
}
