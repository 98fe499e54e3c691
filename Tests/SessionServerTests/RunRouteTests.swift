import Audio
import Compliance
import EventLog
import Foundation
import Hummingbird
import Ingest
import Replay
import SessionModel
import TestSupport
import Testing

/// `GET /v1/runs` and `GET /v1/compare`: two versions of an in-process transcriber driven over two fixture
/// sessions, compared through the routes as `sessionstore runs` and `compare --baseline --candidate` do.
@Suite struct RunRouteTests {
    /// A transcriber that echoes each commit of the source, less its last `dropping` words.
    static func echo(dropping: Int) -> InProcessReplayTarget {
        InProcessReplayTarget(name: "echo") { recorded in
            guard case .transcriptCommitted(let commit) = recorded.event.payload else { return [] }
            let words = commit.text.split(separator: " ").dropLast(dropping).joined(separator: " ")
            return [ProducedEvent(.transcriptCommitted(TranscriptCommitted(segment: "run-" + commit.segment, text: words,
                                                                           startMilliseconds: commit.startMilliseconds,
                                                                           endMilliseconds: commit.endMilliseconds)))]
        }
    }

    /// Two fixtures recorded as members of suite `s` (one `clean`, one `quiet`), and runs of both labelled v1
    /// (perfect) and v2 (a word short in every segment).
    static func store(_ log: EventLog) async throws {
        for (name, condition) in [("short-dictation", "clean"), ("paused-resumed", "quiet")] {
            var options = SessionRecorder.Options(seed: 1)
            options.labels = ["suite": "s", "condition": condition]
            let recorder = SessionRecorder(audio: try AudioFile.read(RepositoryFixtures.audioPath(name)),
                                           script: try FixtureScript.load(RepositoryFixtures.audioPath(name, "json")),
                                           options: options) { _ in SubjectHash(bytes: Array(repeating: 7, count: 32))! }
            _ = try await SessionIngest(log: log).ingest(events: try recorder.events())
            for (label, dropping) in [("v1", 0), ("v2", 1)] {
                let result = try await ReplayDrive(session: recorder.session, log: log, options: .init(withTranscript: true))
                    .run(into: Self.echo(dropping: dropping))
                let record = ReplayRun(source: recorder.session, command: "echo", label: label, speed: "max",
                                       startedAt: result.startedAt, endedAt: result.endedAt)
                _ = try await SessionIngest(log: log).ingest(events: result.runEvents(of: UUID(), record: record))
            }
        }
    }

    @Test func theRoutesCompareTwoLabelsAsTheCLIDoesAndRefuseWhatTheyCannot() async throws {
        try await withServer { fixture in
            try await Self.store(fixture.log)
            let read = fixture.bearer(.read)
            try await fixture.test { client in
                let runs = try await client.execute(uri: "/v1/runs", method: .get, headers: read)
                #expect(runs.status == .ok, "\(runs.text)")
                let labels = try #require(runs.object["labels"] as? [[String: Any]])
                #expect(labels.map { $0["label"] as? String } == ["v1", "v2"])
                #expect(labels.map { $0["sessions"] as? Int } == [2, 2])
                #expect(labels.first?["word_error_rate"] as? Double == 0)

                let compared = try await client.execute(uri: "/v1/compare?baseline=v1&candidate=v2&resamples=2000&seed=3", method: .get, headers: read)
                #expect(compared.status == .ok, "\(compared.text)")
                let document = compared.object
                #expect((document["sessions"] as? [[String: Any]])?.count == 2)
                #expect((document["difference"] as? Double ?? 0) > 0)
                #expect(document["sessions_worse"] as? Int == 2 && document["p_sign"] as? Double == 0.5)
                #expect(document["resamples"] as? Int == 2000 && document["seed"] as? Int == 3)
                // v2 errs in every segment of both sessions, but two sessions are no evidence for a verdict.
                #expect(document["verdict"] as? String == "inconclusive" && document["passed"] as? Bool == true, "\(compared.text)")
                #expect(document["inconclusive_because"] as? String == "2 sessions compared; a verdict needs at least 6", "\(compared.text)")
                let conditions = (document["by_condition"] as? [[String: Any]])?.compactMap { $0["group"] as? String }
                #expect(conditions == ["clean", "quiet"], "\(compared.text)")
                // A run keeps its source's labels: a suite's runs are found by them too.
                let labelled = try await client.execute(uri: "/v1/sessions?label=suite%3Ds&label=condition=quiet", method: .get, headers: read)
                let listed = try #require(labelled.object["sessions"] as? [[String: Any]], "\(labelled.text)")
                #expect(listed.count == 3 && listed.allSatisfy { ($0["labels"] as? [String: String])?["condition"] == "quiet" }, "\(labelled.text)")
                let sources = try await client.execute(uri: "/v1/sessions?label=condition=quiet&runs=false", method: .get, headers: read)
                #expect((sources.object["sessions"] as? [[String: Any]])?.count == 1, "\(sources.text)")
                let itself = try await client.execute(uri: "/v1/compare?baseline=v2&candidate=v2", method: .get, headers: read)
                #expect(itself.status == .ok && itself.object["difference"] as? Double == 0 && itself.object["verdict"] as? String == "inconclusive",
                        "a label against itself, as the CLI answers it: \(itself.text)")
                let badLabel = try await client.execute(uri: "/v1/sessions?label=Suite=s", method: .get, headers: read)
                #expect(badLabel.status == .badRequest && badLabel.text.contains("the name must hold only a-z"), "\(badLabel.text)")

                let refusals: [(String, HTTPResponse.Status, String)] = [
                    ("/v1/compare?baseline=v1", .badRequest, "give baseline and candidate"),
                    ("/v1/compare?baseline=v1&candidate=v9", .notFound, "no run in the store is labelled \"v9\""),
                    ("/v1/compare?baseline=v1&candidate=v2&confidence=1", .badRequest, "confidence 1.0 is not between 0 and 1"),
                    ("/v1/compare?baseline=v1&candidate=v2&max_worse=x", .badRequest, "max_worse \"x\" is not a number"),
                    ("/v1/compare?baseline=v1&candidate=v2&resamples=0", .badRequest, "resamples 0 is not between 1 and 1000000"),
                ]
                for (uri, status, sentence) in refusals {
                    let refused = try await client.execute(uri: uri, method: .get, headers: read)
                    #expect(refused.status == status, "\(uri): \(refused.text)")
                    #expect((refused.object["detail"] as? String)?.contains(sentence) == true, "\(uri): \(refused.text)")
                }
                #expect(try await client.execute(uri: "/v1/runs", method: .get).status == .unauthorized)
                let limited = try await AccessTokens(log: fixture.log).create(scope: .read, subjects: [SubjectHash(bytes: Array(repeating: 7, count: 32))!],
                                                                              name: "one person", actor: "test", at: ServerFixture.now).secret
                #expect(try await client.execute(uri: "/v1/runs", method: .get, headers: fixture.bearer(limited)).status == .forbidden,
                        "a token limited to subjects would read everyone's transcripts")
                #expect(try await client.execute(uri: "/v1/compare?baseline=v1&candidate=v2", method: .get,
                                                 headers: fixture.bearer(.ingest)).status == .forbidden)
            }
        }
    }

    @Test func theConsolesRunsPageShowsTheSuitesTheTrendItsChartAndTheComparisonWithLinksToEachRun() async throws {
        try await withServer { fixture in
            try await Self.store(fixture.log)
            let cookie = ConsoleRouteTests.cookie(fixture.tokens[.read]!)
            try await fixture.test { client in
                let page = try await client.execute(uri: "/ui/runs", method: .get, headers: cookie)
                #expect(page.status == .ok, "\(page.text)")
                let html = page.text
                #expect(html.contains(#"<a href="/ui/sessions?label=suite%3Ds&amp;runs=false">s</a>"#), "the suite, linked to its sessions")
                #expect(html.contains(#"s</a></td><td class="number">2</td><td class="number">4</td>"#),
                        "two recorded sessions, and their four runs counted apart: \(html)")
                #expect(!html.contains("drove different sessions"), "v1 and v2 drove the same sessions: one line")
                #expect(html.contains("<td>clean, quiet</td>"), "the suite's conditions")
                #expect(html.contains(#"<svg class="trend""#) && html.contains("<title>v2: "), "the chart, a point per label")
                #expect(html.contains("v2 against v1") && html.contains("Verdict: <strong>inconclusive: 2 sessions compared"), "the last two labels compared")
                #expect(html.contains("<h3>By condition</h3>") && html.contains("<td>quiet</td>"))
                let runs = try await client.execute(uri: "/v1/sessions?runs=true", method: .get, headers: fixture.bearer(.read))
                let runIDs = (runs.object["sessions"] as? [[String: Any]] ?? []).compactMap { $0["session"] as? String }
                #expect(runIDs.count == 4 && runIDs.allSatisfy { html.contains(#"href="/ui/sessions/\#($0)""#) }, "each run's word diff, one click away")

                let reversed = try await client.execute(uri: "/ui/runs?baseline=v2&candidate=v1", method: .get, headers: cookie)
                #expect(reversed.text.contains("v1 against v2") && reversed.text.contains("Verdict: <strong>inconclusive: 2 sessions compared"),
                        "two sessions are no evidence either way")
                let unknown = try await client.execute(uri: "/ui/runs?baseline=v1&candidate=v9", method: .get, headers: cookie)
                #expect(unknown.status == .ok && unknown.text.contains("no run in the store is labelled &quot;v9&quot;"), "\(unknown.text)")
                let limited = try await AccessTokens(log: fixture.log).create(scope: .read, subjects: [SubjectHash(bytes: Array(repeating: 7, count: 32))!],
                                                                              name: "one person", actor: "test", at: ServerFixture.now).secret
                #expect(try await client.execute(uri: "/ui/runs", method: .get, headers: ConsoleRouteTests.cookie(limited)).status == .forbidden)
            }
        }
    }

    /// What an app reports of a fixture session (SessionStoreTesting's `RunReport`): stored once as a run with its label,
    /// compared with the source as any run is, and refused in one sentence where it cannot be.
    @Test func anAppsTranscriptIsStoredOnceAsARunAndComparedByItsLabel() async throws {
        try await withServer { fixture in
            try await Self.store(fixture.log)
            let sources = try await fixture.test { client in
                let listed = try await client.execute(uri: "/v1/sessions?runs=false", method: .get, headers: fixture.bearer(.read))
                return try #require(listed.object["sessions"] as? [[String: Any]]).compactMap { $0["session"] as? String }
            }
            try #require(sources.count == 2)
            let json = { (scope: TokenScope) -> HTTPFields in
                var headers = fixture.bearer(scope)
                headers[.contentType] = "application/json"
                return headers
            }
            let ingest = json(.ingest)
            try await fixture.test { client in
                var receipts: [String] = []
                for source in sources {
                    let transcript = try await client.execute(uri: "/v1/sessions/\(source)/transcript", method: .get, headers: fixture.bearer(.read))
                    let text = try #require(transcript.object["segments"] as? [[String: Any]]).compactMap { $0["text"] as? String }.joined(separator: " ")
                    let run = UUID().uuidString
                    let body = try JSONSerialization.data(withJSONObject: [
                        "run": run, "label": "app 2.0", "system": "DictationUITests.testFixture",
                        "started_at": "2026-02-01T10:00:00Z", "duration_ms": 30000,
                        "segments": [["text": text]],
                    ])
                    for attempt in 0..<2 {
                        let sent = try await client.execute(uri: "/v1/sessions/\(source.prefix(8))/runs", method: .post, headers: ingest,
                                                            body: ByteBuffer(bytes: body))
                        #expect(sent.status == (attempt == 0 ? .created : .ok), "\(sent.text)")
                        #expect(sent.object["run"] as? String == run.lowercased() && sent.object["source"] as? String == source)
                        #expect(((sent.object["appended"] as? Int ?? 0) > 0) == (attempt == 0), "sent again, stored once: \(sent.text)")
                    }
                    receipts.append(run.lowercased())
                }
                // The app's label stands beside the recognisers': its runs repeat the sources word for word.
                let runs = try await client.execute(uri: "/v1/runs", method: .get, headers: fixture.bearer(.read))
                let labels = try #require(runs.object["labels"] as? [[String: Any]])
                let app = try #require(labels.first { $0["label"] as? String == "app 2.0" }, "\(runs.text)")
                #expect(app["sessions"] as? Int == 2 && app["word_error_rate"] as? Double == 0, "\(runs.text)")
                let compared = try await client.execute(uri: "/v1/compare?baseline=v2&candidate=app%202.0", method: .get, headers: fixture.bearer(.read))
                #expect(compared.status == .ok && (compared.object["difference"] as? Double ?? 0) < 0, "\(compared.text)")
                let stored = try await client.execute(uri: "/v1/sessions/\(receipts[0])", method: .get, headers: fixture.bearer(.read))
                #expect(stored.object["run_of"] as? String == sources[0], "\(stored.text)")

                let valid: [String: Any] = ["run": UUID().uuidString, "label": "app", "system": "test", "segments": [["text": "hello"]],
                                            "started_at": "2026-02-01T10:00:00+01:00", "duration_ms": 0]
                let refusals: [(String, [String: Any]?, String, HTTPResponse.Status, String)] = [
                    (sources[0], valid.merging(["segments": []]) { $1 }, "ingest", .badRequest, "segments holds no segment"),
                    (sources[0], valid.merging(["run": "x"]) { $1 }, "ingest", .badRequest, "run is not valid"),
                    (sources[0], valid.merging(["segments": [["text": " \n"]]]) { $1 }, "ingest", .badRequest, "segments[0].text is empty"),
                    (sources[0], valid.merging(["duration_ms": -1]) { $1 }, "ingest", .badRequest, "duration_ms"),
                    (sources[0], valid.filter { $0.key != "label" }, "ingest", .badRequest, "the body is not a run report (docs/APP-TESTING.md): label is missing"),
                    (sources[0], nil, "ingest", .badRequest, "it is not JSON"),
                    (receipts[0], valid, "ingest", .conflict, "is a run; report a run of the session it replayed"),
                    (sources[0], valid.merging(["run": receipts[0]]) { $1 }, "ingest", .conflict, "is stored already with another report"),
                    ("0badc0de", valid, "ingest", .notFound, "no session whose id begins 0badc0de"),
                    (sources[0], valid, "read", .forbidden, "scope"),
                    (sources[0], valid.merging(["started_at": "yesterday"]) { $1 }, "ingest", .badRequest, "is not an RFC 3339 time"),
                ]
                for (session, document, scope, status, sentence) in refusals {
                    let body = try document.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data("{not json".utf8)
                    let headers = json(scope == "read" ? .read : .ingest)
                    let refused = try await client.execute(uri: "/v1/sessions/\(session)/runs", method: .post, headers: headers, body: ByteBuffer(bytes: body))
                    #expect(refused.status == status && refused.text.contains(sentence), "\(session) \(scope): \(refused.text)")
                }
                let after = try await client.execute(uri: "/v1/runs", method: .get, headers: fixture.bearer(.read))
                let afterLabels = try #require(after.object["labels"] as? [[String: Any]])
                #expect(Set(afterLabels.compactMap { $0["label"] as? String }) == ["v1", "v2", "app 2.0"], "nothing refused was stored: \(after.text)")
                #expect(afterLabels.first { $0["label"] as? String == "app 2.0" }?["commit_latency_p50_ms"] is NSNull,
                        "an app's commits carry no time, so no latency: \(after.text)")
            }
        }
    }
}
