import Foundation
@testable import SessionStoreClient
import TestSupport
import Testing

@Suite struct LiveEventTests {
    @Test func aLineNamesItsTypeSessionTimeAndIdAndCarriesTheEventsFields() throws {
        let session = UUID(), id = UUID()
        let line = try LiveEvent.transcriptCommitted(segment: "1", text: "Hi, \"you\"/🙂", startMs: 0, endMs: 900, confidence: 0.5,
                                                     words: [.init(word: "Hi,", startMs: 0, endMs: 300)])
            .line(session: session, at: Date(timeIntervalSince1970: 1_795_000_000.25), id: id)
        let object = try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any])
        #expect(object["type"] as? String == "transcript.committed")
        #expect(object["session"] as? String == session.uuidString.lowercased())
        #expect(object["id"] as? String == id.uuidString.lowercased())
        #expect(object["at"] as? String == "2026-11-18T11:06:40.250Z")
        #expect(object["text"] as? String == "Hi, \"you\"/🙂")
        #expect((object["words"] as? [[String: Any]])?.first?["end_ms"] as? Int == 300)
        #expect(!line.contains(0x0A))
    }

    @Test func anEventTheServerWouldRefuseForItsShapeIsRefusedBeforeTheOutbox() {
        let session = UUID()
        let refused: [LiveEvent] = [
            .recordingChunk(recording: "mic", index: 0, pcm: Data(count: 3)),
            .transcriptPartial(segment: "1", revision: 0, text: "x", startMs: 500, endMs: 100),
            .transcriptCommitted(segment: "1", text: "x", startMs: 0, endMs: 1, confidence: .nan),
            .playbackSeeked(recording: "mic", fromMs: -1, toMs: 0),
        ]
        for event in refused {
            let error = #expect(throws: ClientError.self) { try event.line(session: session, at: Date(), id: UUID()) }
            #expect(error?.code == .invalidEvent)
            #expect(error?.message.contains(event.type) == true)
        }
    }

    @Test func everyKindOfEventTheClientWritesIsOneTheServerStores() async throws {
        try await withLiveServer { server in
            try await server.serving { port in
                let client = try makeClient(port: port) { _ in server.token }
                let session = UUID()
                let events: [LiveEvent] = [
                    .sessionStarted(subject: "u", locale: "en-GB", device: "Pixel 9", appVersion: "1.2", labels: ["suite": "every-kind"]),
                    .consentGranted(subject: "u", consentType: "transcription", method: "in_app_prompt", policyVersion: "2026-01"),
                    .recordingStarted(recording: "mic", sampleRate: 16_000, channels: 1),
                    .recordingChunk(recording: "mic", index: 0, pcm: Data(count: 3200)),
                    .sessionPaused(reason: "call"), .sessionResumed,
                    .transcriptPartial(segment: "1", revision: 0, text: "hel", startMs: 0, endMs: 100, stability: 0.4),
                    .transcriptCommitted(segment: "1", text: "Hello.", startMs: 0, endMs: 100, confidence: 0.9, speaker: "A",
                                         words: [.init(word: "Hello.", startMs: 0, endMs: 100, confidence: 0.9)]),
                    .transcriptCorrected(segment: "1", text: "Hallo.", reason: "user edit"),
                    .recordingStopped(recording: "mic"),
                    .playbackStarted(recording: "mic", positionMs: 0, rate: 1.5), .playbackPaused(recording: "mic", positionMs: 50),
                    .playbackSeeked(recording: "mic", fromMs: 50, toMs: 10), .playbackStopped(recording: "mic", positionMs: 60),
                    .playbackCompleted(recording: "mic"),
                    .consentRevoked(subject: "u", consentType: "transcription", method: "settings"),
                    .sessionEnded(reason: "done"),
                ]
                let ids = try events.map { try client.append($0, to: session) }
                try await client.flush(timeout: .seconds(240))
                #expect(client.refusal(of: session) == nil)
                #expect(try server.storedIDs(of: session) == ids)
                await client.close()
            }
        }
    }
}

@Suite struct SyncRulesTests {
    @Test func retryAfterIsReadAsSecondsOrAnHTTPDate() {
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryAfter.delay("7", now: now) == .seconds(7))
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:49:47 GMT", now: now) == .seconds(10))
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:49:27 GMT", now: now) == .zero)
        #expect(RetryAfter.delay("soon", now: now) == nil)
        #expect(RetryAfter.delay("-3", now: now) == nil)
        #expect(RetryAfter.delay(nil, now: now) == nil)
    }

    @Test func eachAnswerOfTheServerIsTheActionTheDocsName() {
        func answer(_ status: Int, _ headers: [String: String] = [:], _ body: String = "") -> ServerAnswer {
            .of(status: status, headers: headers, body: Data(body.utf8))
        }
        #expect(answer(401) == .unauthorized)
        #expect(answer(429, ["Retry-After": "3"]) == .retryLater(.seconds(3)))
        #expect(answer(503, ["retry-after": "1"]) == .retryLater(.seconds(1)))
        #expect(answer(503) == .retryLater(nil))
        #expect(answer(500, [:], #"{"detail":"disk"}"#) == .serverFailed("500: disk"))
        #expect(answer(400, [:], #"{"type":"urn:sessionstore:problem:not-a-websocket-handshake"}"#) == .upgradeBlocked)
        #expect(answer(403, [:], #"{"title":"no"}"#) == .refused(status: 403, problem: "403: no"))
    }

    @Test func backoffWaitsAreFullyJitteredUnderADoublingCeilingAndTheCap() {
        let backoff = Backoff(base: .milliseconds(100), cap: .seconds(2))
        var random = SystemRandomNumberGenerator()
        for attempt in 0..<10 {
            let ceiling = min(2.0, 0.1 * pow(2, Double(attempt)))
            let waits = (0..<200).map { _ in backoff.delay(attempt: attempt, using: &random).seconds }
            #expect(waits.allSatisfy { $0 >= 0 && $0 <= ceiling + 1e-9 })
            // Full jitter: spread over the whole range, not bunched at its top.
            #expect(waits.min()! < ceiling * 0.2 && waits.max()! > ceiling * 0.8)
        }
    }
}
