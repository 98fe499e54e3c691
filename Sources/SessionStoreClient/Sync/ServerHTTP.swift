import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the server answered over plain HTTP, as the sync acts on it (docs/CLIENT.md, "Answers").
enum ServerAnswer: Sendable, Equatable {
    /// 401: the token is not (or no longer) valid; ask the token provider again.
    case unauthorized
    /// 429 or 503: wait as `Retry-After` says (nil: it said nothing usable; back off).
    case retryLater(Duration?)
    /// Another 5xx, or no answer at all: back off.
    case serverFailed(String)
    /// The route exists and would take the session, but the WebSocket upgrade did not pass (a proxy): send batches
    /// over `POST /v1/events` instead.
    case upgradeBlocked
    /// Any other refusal (403, 404, 400): the problem's sentence, for the app; retried after backing off.
    case refused(status: Int, problem: String)

    static func of(status: Int, headers: [AnyHashable: Any], body: Data) -> ServerAnswer {
        let problem = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        let sentence = (problem?["detail"] as? String) ?? (problem?["title"] as? String) ?? HTTPURLResponse.localizedString(forStatusCode: status)
        switch status {
        case 401: return .unauthorized
        case 429, 503:
            let retryAfter = headers.first { ($0.key as? String)?.lowercased() == "retry-after" }?.value as? String
            return .retryLater(RetryAfter.delay(retryAfter))
        case 400 where (problem?["type"] as? String)?.hasSuffix("not-a-websocket-handshake") == true: return .upgradeBlocked
        case 500...: return .serverFailed("\(status): \(sentence)")
        default: return .refused(status: status, problem: "\(status): \(sentence)")
        }
    }
}

/// The server's HTTP face, as the client uses it: asking why an upgrade was refused, and the batch fallback.
struct ServerHTTP: Sendable {
    let base: URL
    let session: URLSession
    let timeout: TimeInterval

    /// `GET` of the live route without `Upgrade`: the server answers it with the problem that refused the upgrade.
    func whyRefused(_ liveURL: URL, token: String) async -> ServerAnswer {
        var components = URLComponents(url: liveURL, resolvingAgainstBaseURL: false)!
        components.scheme = components.scheme == "wss" ? "https" : "http"
        var request = URLRequest(url: components.url!, timeoutInterval: timeout)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        do {
            let (body, response) = try await session.data(for: request)
            guard let response = response as? HTTPURLResponse else { return .serverFailed("an answer that is not HTTP") }
            return .of(status: response.statusCode, headers: response.allHeaderFields, body: body)
        } catch {
            return .serverFailed(error.localizedDescription)
        }
    }

    /// The outcome of a batch: its answer, and on 200 each line's log position; on 422 the first refused line.
    struct BatchOutcome: Sendable {
        var answer: ServerAnswer?
        var stored = false
        var positions: [UInt64] = []
        var refusedLine: Int?
        var problem = Data()
    }

    /// `POST /v1/events` with `lines` as NDJSON: appended all or nothing, idempotent by event id.
    func post(_ lines: [Data], token: String) async -> BatchOutcome {
        var request = URLRequest(url: base.appendingPathComponent("v1/events"), timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/x-ndjson", forHTTPHeaderField: "Content-Type")
        var body = Data()
        for line in lines {
            body.append(line)
            body.append(0x0A)
        }
        do {
            let (answer, response) = try await session.upload(for: request, from: body)
            guard let response = response as? HTTPURLResponse else { return BatchOutcome(answer: .serverFailed("an answer that is not HTTP")) }
            if response.statusCode == 200 {
                let report = (try? JSONSerialization.jsonObject(with: answer)) as? [String: Any]
                let positions = (report?["positions"] as? [NSNumber])?.map(\.uint64Value) ?? []
                return BatchOutcome(stored: true, positions: positions)
            }
            if response.statusCode == 422 {
                let problem = (try? JSONSerialization.jsonObject(with: answer)) as? [String: Any]
                let lines = (problem?["problems"] as? [[String: Any]])?.compactMap { $0["line"] as? Int }
                return BatchOutcome(refusedLine: lines?.min() ?? 1, problem: answer)
            }
            return BatchOutcome(answer: .of(status: response.statusCode, headers: response.allHeaderFields, body: answer))
        } catch {
            return BatchOutcome(answer: .serverFailed(error.localizedDescription))
        }
    }
}
