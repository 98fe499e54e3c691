import Foundation
import Testing
import TestSupport

/// `sessionstore report`: one session as a self-contained HTML page, read back by Python's HTML parser,
/// its SVG as XML and its recording with soundfile (ReportReader).
@Suite(.timeLimit(.minutes(10))) struct ReportCommandTests {
    static let session = OutputFixture.session

    @Test func thePageHoldsEverySegmentOnceTheTimelineMarkersAndTheRecordingsExactSamples() async throws {
        try await withCLI { cli in
            try OutputFixture.copy(into: cli)
            let page = cli.directory.appendingPathComponent("report.html")
            let made = try await cli.runInProcess(["report", Self.session, "--out", page.path])
            #expect(made.status == 0, "\(made.stderr)")
            let wav = cli.directory.appendingPathComponent("recording.wav")
            #expect(try await cli.runInProcess(["audio", Self.session, "--out", wav.path]).status == 0)
            let read = try ReportReader.read(try Data(contentsOf: page), comparingWith: wav)

            let document = try JSONSerialization.jsonObject(with: Data(try await cli.runInProcess(["transcript", Self.session, "--format", "json"]).stdout.utf8))
            let transcript = try #require((document as? [String: Any])?["segments"] as? [[String: Any]])
            let segments = try #require(read["segments"] as? [[String: Any]])
            #expect(segments.map { $0["text"] as? String } == transcript.map { $0["text"] as? String }, "every segment, once, in order")
            #expect(segments.compactMap { $0["text"] as? String }.contains("-- Dose: 5 mg; follow-up in 2 weeks"), "a correction is shown")
            #expect((read["duplicate_ids"] as? [String])?.isEmpty == true)
            #expect((read["external"] as? [String])?.isEmpty == true, "nothing is fetched from outside the page")
            let svg = try #require(read["svg"] as? [String: Any])
            #expect(svg["paths"] as? Int == 1, "the waveform is one path")
            #expect(svg["segment_rects"] as? Int == segments.count)
            #expect(svg["revision_lines"] as? Int == 2, "the two partial guesses of the first segment")
            let markers = try #require(svg["markers"] as? [String])
            for kind in ["consent-granted", "consent-revoked", "play", "seek", "complete"] {
                #expect(markers.contains(kind), "a \(kind) marker")
            }
            let audio = try #require(read["audio"] as? [String: Any])
            #expect(audio["mime"] as? String == "data:audio/flac;base64")
            #expect(audio["matches_wav"] as? Bool == true, "the embedded FLAC decodes to the recording's exact samples")
            let html = try String(contentsOf: page, encoding: .utf8)
            #expect(html.contains("Never committed") && html.contains("שלום 👋 مرحبا"), "the uncommitted partial is listed")
            #expect(html.contains("Patient says, &quot;it hurts&quot; — here,\nand there."), "text is escaped, not dropped")
        }
    }

    @Test func theSameStoreGivesTheSameBytesAndNoAudioOrTextWhenAsked() async throws {
        try await withCLI { cli in
            try OutputFixture.copy(into: cli)
            let first = try await cli.runInProcess(["report", Self.session, "--out", "-"])
            let second = try await cli.runInProcess(["report", String(Self.session.prefix(8)), "--out", "-"])
            #expect(first.status == 0 && second.status == 0, "\(first.stderr) \(second.stderr)")
            #expect(first.stdout == second.stdout, "deterministic, and a unique prefix names the session")
            #expect(!first.stdout.contains("As of"), "no generation time unless --as-of")

            let quiet = try await cli.runInProcess(["report", Self.session, "--no-audio", "--redact", "--out", "-"])
            #expect(quiet.status == 0)
            #expect(!quiet.stdout.contains("<audio") && !quiet.stdout.contains("data:audio"))
            #expect(quiet.stdout.contains("class=\"waveform\""), "the waveform stays without the audio")
            #expect(!quiet.stdout.contains("it hurts") && !quiet.stdout.contains("Dose") && quiet.stdout.contains("[REDACTED]"))
        }
    }

    @Test func anErasedSessionGivesAPageWithoutTextOrAudioThatSaysSo() async throws {
        try await withCLI { cli in
            try OutputFixture.copy(into: cli)
            #expect(try await cli.runInProcess(["erase", "--subject", OutputFixture.subject, "--yes"]).status == 0)
            let page = try await cli.runInProcess(["report", Self.session, "--out", "-"])
            #expect(page.status == 0, "\(page.stderr)")
            #expect(page.stdout.contains("This session was erased"))
            #expect(!page.stdout.contains("<audio") && !page.stdout.contains("it hurts") && !page.stdout.contains("class=\"waveform\""))
            let read = try ReportReader.read(Data(page.stdout.utf8))
            #expect((read["segments"] as? [Any])?.isEmpty == true)
            #expect((read["svg"] as? [String: Any])?["markers"] as? [String] == ["consent-granted", "consent-granted", "consent-revoked"],
                    "the consent trail remains")
        }
    }

    @Test func aViolationOfTheSessionIsMarkedInRedOnTheTimelineAndListed() async throws {
        try await withCLI { cli in
            #expect(try await cli.runInProcess(["init"]).status == 0)
            #expect(try await cli.runInProcess(["ingest", "-"], input: Data(ComplianceCommandsTests.sessions.utf8)).status == 0)
            let page = try await cli.runInProcess(["report", ComplianceCommandsTests.revoked, "--out", "-"])
            #expect(page.status == 0, "\(page.stderr)")
            let read = try ReportReader.read(Data(page.stdout.utf8))
            let markers = try #require((read["svg"] as? [String: Any])?["markers"] as? [String])
            #expect(markers.filter { $0 == "violation" }.count == 1, "\(markers)")
            #expect(page.stdout.contains(#"<tr class="bad"><td>2026-03-01T10:00:04.000Z</td><td>event_after_revocation"#))
            #expect(page.stdout.contains(#"<dt>Violations</dt><dd class="bad">1</dd>"#))
            let clean = try await cli.runInProcess(["report", ComplianceCommandsTests.consented, "--out", "-"])
            #expect(!clean.stdout.contains("marker violation") && clean.stdout.contains(#"<dt>Violations</dt><dd class="good">none</dd>"#))
        }
    }

    @Test func badArgumentsAreRefusedWithNoFileLeft() async throws {
        try await withCLI { cli in
            try OutputFixture.copy(into: cli)
            let unknown = try await cli.runInProcess(["report", "00000000-0000-4000-8000-000000000000", "--out", cli.path("r.html")])
            #expect(unknown.status == 65 && unknown.stderr.contains("no session"), "\(unknown.stderr)")
            let badTime = try await cli.runInProcess(["report", Self.session, "--as-of", "yesterday", "--out", cli.path("r.html")])
            #expect(badTime.status == 64 && badTime.stderr.contains("--as-of yesterday"))
            #expect(try await cli.runInProcess(["report", Self.session]).status == 64, "--out is required")
            #expect(!FileManager.default.fileExists(atPath: cli.directory.appendingPathComponent("r.html").path))
        }
    }

    @Test func aSessionsRunsAreChartedAndTabledInTheOrderTheyWereDriven() async throws {
        try await withCLI { cli in
            let source = try DriveCommandTests.record("short-dictation", in: cli)
            for (label, flaws) in [("v1", ""), ("v2", " --drop-every 3")] {
                // A generous --timeout: the first pass runs this beside many other tests on two cores.
                let drove = try await cli.runInProcess(["replay", source, "--drive", DriveCommandTests.echo + flaws, "--with-transcript", "--label", label,
                                                        "--timeout", "300"])
                try #require(drove.status == 0, "\(drove.stderr)")
            }
            let page = try await cli.runInProcess(["report", source, "--no-audio", "--out", "-"])
            try #require(page.status == 0, "\(page.stderr)")
            let html = page.stdout
            #expect(html.contains("<h2>Runs of this session</h2>") && html.contains(#"<svg class="trend""#))
            let first = try #require(html.range(of: "<td>v1</td>"))
            let second = try #require(html.range(of: "<td>v2</td>"))
            #expect(first.lowerBound < second.lowerBound, "in the order they were driven")
            #expect(html.contains("<title>v1: word error rate 0.0%"), "an echo without flaws is exact")
            #expect(!html.contains("<title>v2: word error rate 0.0%"), "every third word dropped")
            let again = try await cli.runInProcess(["report", source, "--no-audio", "--out", "-"])
            #expect(again.stdout == html, "the same store, the same bytes")
        }
    }
}
