import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an app transcribed of a fixture session, sent back to the store as a run of that session
/// (`POST /v1/sessions/{id}/runs`, docs/APP-TESTING.md): the Runs page and `compare --baseline
/// --candidate` then judge app versions by their labels, as they judge recognisers.
public struct RunReport: Codable, Sendable, Equatable {
    /// One segment of the app's transcript, in the order the app showed them.
    public struct Segment: Codable, Sendable, Equatable {
        public var text: String
        public var speaker: String?

        public init(text: String, speaker: String? = nil) {
            self.text = text
            self.speaker = speaker
        }
    }

    /// The run's id: keep it to send the same report again (a retry), which stores nothing twice.
    public var run: UUID
    /// The app's version, such as "DictationApp 2.4 (311)": the label its runs are compared by.
    public var label: String
    /// What produced the transcript, such as the test's name.
    public var system: String
    public var segments: [Segment]
    /// When the test started, as RFC 3339 UTC, and how long it took: part of the report, so that sending it again
    /// repeats it exactly.
    public var startedAt: String
    public var durationMilliseconds: Int

    /// A report; the times are now unless given.
    public init(run: UUID = UUID(), label: String, system: String, segments: [Segment], startedAt: Date = Date(), endedAt: Date = Date()) {
        self.run = run
        self.label = label
        self.system = system
        self.segments = segments
        self.startedAt = Self.rfc3339(startedAt)
        durationMilliseconds = Int(min(Double(UInt32.max), max(0, endedAt.timeIntervalSince(startedAt) * 1000)).rounded())
    }

    /// A report of a transcript the app shows as one text (a UI test reads it from a label): one segment.
    public init(run: UUID = UUID(), label: String, system: String, transcript: String, startedAt: Date = Date(), endedAt: Date = Date()) {
        self.init(run: run, label: label, system: system, segments: [Segment(text: transcript)], startedAt: startedAt, endedAt: endedAt)
    }

    enum CodingKeys: String, CodingKey {
        case run, label, system, segments
        case startedAt = "started_at"
        case durationMilliseconds = "duration_ms"
    }

    private static func rfc3339(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}

/// What the store answered: the run stored now (`appended` > 0), or found stored already.
public struct RunReceipt: Decodable, Sendable, Equatable {
    public var run: UUID
    public var source: UUID
    public var label: String
    public var appended: Int
    public var duplicates: Int
}

/// Why a report was not stored: the server's status and its problem's sentence, or the transport's failure.
public struct RunReportError: Error, CustomStringConvertible, Sendable {
    /// The HTTP status, or nil when no answer came.
    public let status: Int?
    public let description: String
    /// How long the server asked to wait before sending again (429 or 503 with `Retry-After` in seconds).
    public let retryAfter: Duration?
}

/// Sends ``RunReport``s to a SessionStore server with a token of scope ingest. Foundation only.
public struct RunReporter: Sendable {
    public let server: URL
    private let token: String
    private let session: URLSession

    /// A reporter to `server` (such as `https://store.example:8443`), sending `token` as its bearer token.
    public init(server: URL, token: String, session: URLSession = .shared) {
        self.server = server
        self.token = token
        self.session = session
    }

    /// Stores `report` as a run of the fixture session `session` (an expectation's `session`).
    /// - Throws: ``RunReportError``.
    @discardableResult
    public func send(_ report: RunReport, of session: UUID) async throws -> RunReceipt {
        let url = server.appendingPathComponent("v1/sessions/\(session.uuidString.lowercased())/runs")
        var request = URLRequest(url: url, timeoutInterval: 60)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.httpBody = try JSONEncoder().encode(report)
        let body: Data, response: URLResponse
        do {
            (body, response) = try await self.session.data(for: request)
        } catch {
            throw RunReportError(status: nil, description: "no answer from \(url.absoluteString): \(error.localizedDescription)", retryAfter: nil)
        }
        guard let http = response as? HTTPURLResponse else {
            throw RunReportError(status: nil, description: "the answer from \(url.absoluteString) is not HTTP", retryAfter: nil)
        }
        guard (200..<300).contains(http.statusCode) else {
            let problem = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
            let sentence = (problem?["detail"] as? String) ?? (problem?["title"] as? String) ?? HTTPURLResponse.localizedString(forStatusCode: http.statusCode)
            let retryAfter = (http.value(forHTTPHeaderField: "Retry-After")).flatMap(Int.init).map { Duration.seconds($0) }
            throw RunReportError(status: http.statusCode, description: "\(http.statusCode): \(sentence)", retryAfter: retryAfter)
        }
        do {
            return try JSONDecoder().decode(RunReceipt.self, from: body)
        } catch {
            throw RunReportError(status: http.statusCode, description: "the server's answer is not a run receipt: \(error)", retryAfter: nil)
        }
    }
}
