import Compliance
import EventLog
import Foundation
import Hummingbird
import HTTPTypes
import Ingest
import Output
import ServiceLifecycle
import SessionModel

/// `POST /v1/events` (NDJSON in the ingest shape, all or nothing, durable before the answer) and
/// `GET /v1/events` (the log's live tail as Server-Sent Events).
struct EventRoutes {
    let log: EventLog
    let configuration: ServerConfiguration
    let appender: Appender

    /// A quiet tail sends a comment this often, so that proxies and the idle timeout keep it open.
    static let keepAliveInterval = Duration.seconds(15)
    /// What a body may be labelled; curl's default for --data-binary (form-urlencoded) is taken too.
    static let ndjsonTypes: Set<String> = ["application/x-ndjson", "application/ndjson", "application/jsonl", "application/json",
                                           "text/plain", "application/octet-stream", "application/x-www-form-urlencoded"]

    func add(to router: RouterGroup<ServerContext>) {
        router.post("events") { request, context in try await append(request, context) }
        router.get("events") { request, context in try await tail(request, context) }
    }

    private func append(_ request: Request, _ context: ServerContext) async throws -> Response {
        try context.require(.ingest)
        if let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingOptionalWhiteSpace.lowercased(),
           !Self.ndjsonTypes.contains(type) {
            throw Problem(.unsupportedMediaType, detail: "Content-Type \(type) is not NDJSON; send application/x-ndjson, one event per line (docs/INGEST.md)")
        }
        let body = try await BodySpool.read(request.body, in: configuration.spoolDirectory, maximumBytes: configuration.maximumBodyBytes,
                                            maximumLineBytes: configuration.maximumLineBytes, timeout: configuration.bodyTimeout)
        defer { BodySpool.discard(body) }
        let report = try await appender.append(body)
        guard report.lines > 0 else { throw Problem.badRequest("the body holds no events: send NDJSON, one event per line (docs/INGEST.md)") }
        return .json(AppendAnswer(report: report).json)
    }

    /// Every event after `after` (or the `Last-Event-ID` a reconnecting client sends), then each new one
    /// as it is committed: `id` is the position, `event` the type, `data` the event as `events` prints it.
    private func tail(_ request: Request, _ context: ServerContext) async throws -> Response {
        let token = try context.require(.read)
        guard token.subjects.isEmpty else {
            throw Problem(.forbidden, detail: "a token limited to subjects cannot read the whole log's tail")
        }
        let withAudio = try request.form.boolean("with_audio") ?? false
        let after = try request.form.single("after").map { try Problem.position($0, "after") }
        let resumed = try request.headers[HTTPField.Name("Last-Event-ID")!].map { try Problem.position($0, "Last-Event-ID") }
        let start = (resumed ?? after).map { $0 + 1 } ?? 0
        let log = self.log
        return try await ReadAccess(token, request, log: log).read(.tail, of: []) { Self.tail(from: start, of: log, withAudio: withAudio) }
    }

    /// The tail as Server-Sent Events, from position `start` on, without end.
    private static func tail(from start: UInt64, of log: EventLog, withAudio: Bool) -> Response {
        let body = ResponseBody { writer in
            try await withThrowingTaskGroup(of: Void.self) { group in
                let (messages, continuation) = AsyncStream<[UInt8]>.makeStream(bufferingPolicy: .bufferingOldest(256))
                group.addTask {
                    defer { continuation.finish() }
                    for try await row in SessionEventRows.tail(from: start, in: log, withAudio: withAudio) {
                        var message = Array("id: \(row.recorded.position)\nevent: \(row.recorded.event.type.rawValue)\ndata: ".utf8)
                        message += row.json
                        message += Array("\n\n".utf8)
                        while case .dropped = continuation.yield(message) { try await Task.sleep(for: .milliseconds(5)) }
                    }
                }
                group.addTask {
                    while true {
                        try await Task.sleep(for: Self.keepAliveInterval)
                        continuation.yield(Array(": keep-alive\n\n".utf8))
                    }
                }
                try await writer.write(ByteBuffer(string: ": sessionstore tail from position \(start)\n\n"))
                // A tail never ends by itself: a graceful shutdown (SIGTERM) ends it, so that the server stops promptly, and so
                // does the request's cancellation (its client gone), which ends the stream's iteration.
                try await withGracefulShutdownHandler {
                    for await message in messages { try await writer.write(ByteBuffer(bytes: message)) }
                } onGracefulShutdown: {
                    continuation.finish()
                }
                group.cancelAll()
            }
        }
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: body)
    }
}

/// What a good append answers: counts, and each event line's position (a resend gets the same ones).
private struct AppendAnswer: OutputRow {
    static let columns = ["lines", "appended", "duplicates", "sessions", "positions"]
    var report: IngestReport

    func write(to fields: inout Fields) {
        fields.field("lines", report.lines)
        fields.field("appended", report.appended)
        fields.field("duplicates", report.duplicates)
        fields.field("sessions", report.sessions)
        fields.field("positions", numbers: report.positions)
    }
}
