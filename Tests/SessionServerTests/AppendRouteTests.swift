import Compliance
import EventLog
import Foundation
import Hummingbird
@testable import SessionServer
import Testing

/// `POST /v1/events`: validated as `ingest` validates, all or nothing, durable before the answer, and a
/// resend answered with the positions of the first send.
@Suite struct AppendRouteTests {
    @Test func aGoodBodyIsAppendedAndAResendGetsTheSamePositionsWithoutStoringTwice() async throws {
        try await withServer { fixture in
            let (_, body) = sessionLines()
            try await fixture.test { client async throws -> Void in
                let first = try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest), body: ByteBuffer(string: body))
                #expect(first.status == .ok, "\(first.text)")
                let positions = first.object["positions"] as? [Int]
                #expect(positions?.count == 3)
                #expect(first.object["appended"] as? Int == 3)
                let count = try fixture.log.eventCount()

                let again = try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest), body: ByteBuffer(string: body))
                #expect(again.status == .ok)
                #expect(again.object["positions"] as? [Int] == positions)
                #expect(again.object["appended"] as? Int == 0)
                #expect(again.object["duplicates"] as? Int == 3)
                #expect(try fixture.log.eventCount() == count, "a resend stores nothing")
            }
        }
    }

    @Test func aBodyWithOneBadLineAppendsNothingAndTheProblemNamesLineAndField() async throws {
        try await withServer { fixture in
            let body = sessionLines().body + #"{"type":"transcript.committed","session":"not-a-uuid","at":"2026-11-21T10:00:03.000Z","segment":"2","text":"x","start_ms":0,"end_ms":1}"# + "\n"
            let before = try fixture.log.eventCount()
            try await fixture.test { client async throws -> Void in
                let answer = try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest), body: ByteBuffer(string: body))
                #expect(answer.status == .unprocessableContent)
                #expect(answer.headers[.contentType] == "application/problem+json")
                #expect(answer.object["type"] as? String == "urn:sessionstore:problem:invalid-events")
                let problems = answer.object["problems"] as? [[String: Any]]
                #expect(problems?.first?["line"] as? Int == 4)
                #expect(problems?.first?["field"] as? String == "session")
                #expect((answer.object["detail"] as? String)?.hasPrefix("line 4, field \"session\"") == true)
            }
            #expect(try fixture.log.eventCount() == before, "nothing of the rejected body is stored")
        }
    }

    @Test func anEventIdResentWithOtherContentIsRefused() async throws {
        try await withServer { fixture in
            let (_, body) = sessionLines()
            let altered = body.replacingOccurrences(of: "Hello world", with: "Goodbye world")
            try await fixture.test { client async throws -> Void in
                #expect(try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest),
                                                 body: ByteBuffer(string: body)).status == .ok)
                let refused = try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest),
                                                       body: ByteBuffer(string: altered))
                #expect(refused.status == .unprocessableContent)
                let problems = refused.object["problems"] as? [[String: Any]]
                #expect(problems?.first?["line"] as? Int == 3)
                #expect(problems?.first?["field"] as? String == "id")
            }
        }
    }

    @Test func aBodyOverTheLimitIsRefusedWith413AndNothingIsAppended() async throws {
        var configuration = ServerConfiguration()
        configuration.maximumBodyBytes = 300
        try await withServer(configuration) { fixture in
            let (_, body) = sessionLines()
            let before = try fixture.log.eventCount()
            try await fixture.test { client async throws -> Void in
                let answer = try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest), body: ByteBuffer(string: body))
                #expect(answer.status == .contentTooLarge)
                #expect(answer.object["type"] as? String == "urn:sessionstore:problem:body-too-large")
            }
            #expect(try fixture.log.eventCount() == before)
        }
    }

    @Test(.timeLimit(.minutes(10))) func aBodyNotWholeWithinTheTimeoutIsAnswered408AndNothingIsAppended() async throws {
        var configuration = ServerConfiguration()
        configuration.bodyTimeout = .milliseconds(300)
        try await withServer(configuration) { fixture in
            let (_, body) = sessionLines()
            let before = try fixture.log.eventCount()
            // The first half of the body arrives; the rest never does.
            let (parts, sender) = AsyncStream<ByteBuffer>.makeStream()
            sender.yield(ByteBuffer(string: String(body.prefix(body.count / 2))))
            defer { sender.finish() }
            try await fixture.test { client async throws -> Void in
                let answer = try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest),
                                                      streaming: RequestBody(asyncSequence: parts))
                #expect(answer.status == .requestTimeout, "\(answer.text)")
                #expect(answer.object["type"] as? String == "urn:sessionstore:problem:body-timeout")
            }
            #expect(try fixture.log.eventCount() == before)
        }
    }

    @Test func aLineOverTheLineLimitIsRefusedNamingTheLine() async throws {
        var configuration = ServerConfiguration()
        configuration.maximumLineBytes = 300
        try await withServer(configuration) { fixture in
            let (_, body) = sessionLines(text: String(repeating: "long ", count: 80))
            try await fixture.test { client async throws -> Void in
                let answer = try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest), body: ByteBuffer(string: body))
                #expect(answer.status == .contentTooLarge)
                #expect((answer.object["detail"] as? String)?.hasPrefix("line 3 passes 300 bytes") == true, "\(answer.text)")
            }
        }
    }

    @Test func aBodyThatIsNotNDJSONByItsTypeIsRefusedWith415() async throws {
        try await withServer { fixture in
            var xml = fixture.bearer(.ingest)
            xml[.contentType] = "application/xml"
            let headers = xml
            try await fixture.test { client async throws -> Void in
                let answer = try await client.execute(uri: "/v1/events", method: .post, headers: headers, body: ByteBuffer(string: "<a/>"))
                #expect(answer.status == .unsupportedMediaType)
            }
        }
    }

    @Test func appendsAreCountedInTheMetrics() async throws {
        try await withServer { fixture in
            try await fixture.test { client async throws -> Void in
                _ = try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.ingest), body: ByteBuffer(string: sessionLines().body))
                _ = try await client.execute(uri: "/v1/sessions", method: .get)
                let metrics = try await client.execute(uri: "/metrics", method: .get).text
                #expect(metrics.contains("sessionstore_appended_events_total 3"), "\(metrics)")
                #expect(metrics.contains("sessionstore_append_requests_total 1"))
                #expect(metrics.contains("sessionstore_rejected_requests_total 1"))
                #expect(metrics.contains("sessionstore_durable_commit_seconds_count 1"))
            }
        }
    }
}

extension AppendRouteTests {
    @Test func aFullAppendQueueAnswers503WithRetryAfterAtOnce() async throws {
        let gate = AppendGate(capacity: 1)
        let (holding, release) = AsyncStream<Void>.makeStream()
        let (entered, signal) = AsyncStream<Void>.makeStream()
        let first = Task {
            try await gate.withPlace {
                signal.yield()
                for await _ in holding { break }
            }
        }
        for await _ in entered { break }
        let refused = await #expect(throws: Problem.self) { try await gate.withPlace {} }
        #expect(refused?.status == .serviceUnavailable)
        #expect(refused?.retryAfter == 1)
        release.yield()
        try await first.value
        try await gate.withPlace {}  // the place is free again
    }
}
