import EventLog
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Output
import SessionLog

/// `GET /v1/sessions/{id}/live`, upgraded to a WebSocket: a client that records sends each event of the
/// session as one text message (an ingest line, docs/INGEST.md) and gets each acknowledged with its log
/// position once it is durable, in order. The first message from the server says what the store holds
/// of the session already, so that a client that lost its connection resumes after its last stored
/// event; an event sent twice is stored once (its id), so resending everything not acknowledged is safe.
struct LiveRoute {
    let appender: Appender
    let log: EventLog
    let configuration: ServerConfiguration

    func add(to router: RouterGroup<ServerContext>) {
        router.ws("sessions/:session/live") { request, context in
            try context.require(.ingest)
            _ = try session(of: context)
            _ = try request.form.boolean("stop_on_refusal")
            // RFC 6455 §4.2.2: a request that is not a WebSocket handshake is answered 400.
            guard request.headers[.upgrade]?.lowercased() == "websocket" else {
                throw Problem(.notAWebSocket, detail: "connect with a WebSocket client (Upgrade: websocket)")
            }
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            let session = try session(of: context.requestContext)
            // `stop_on_refusal=true`: a client that pipelines its events wants none stored after one refused, out of order.
            let stopOnRefusal = (try? context.request.form.boolean("stop_on_refusal")) ?? false
            var refused: Int?
            try await outbound.write(.text(String(decoding: try Hello(log: log, session: session).json, as: UTF8.self)))
            var sequence = 0
            for try await message in inbound.messages(maxSize: configuration.maximumLineBytes) {
                sequence += 1
                let answer: [UInt8]
                do {
                    if let refused, stopOnRefusal {
                        throw Problem(.afterRefusal, detail: "message \(refused) of this stream was refused; connect again to go on")
                    }
                    guard case .text(let line) = message else {
                        throw Problem.badRequest("a message must be text: one event as a line of JSON")
                    }
                    let report = try await appender.append(.bytes(Data(line.utf8)), session: session)
                    guard report.lines == 1, let position = report.positions.first else {
                        throw Problem.badRequest("a message must hold exactly one event")
                    }
                    answer = Acknowledgement(sequence: sequence, position: position, duplicate: report.duplicates > 0).json
                } catch let problem as Problem {
                    refused = refused ?? sequence
                    answer = Refusal(sequence: sequence, problem: problem).json
                }
                try await outbound.write(.text(String(decoding: answer, as: UTF8.self)))
            }
        }
    }

    /// The session recorded: its whole id, since it may not exist yet.
    private func session(of context: ServerContext) throws -> UUID {
        try context.parameters.require("session", as: UUID.self)
    }
}

/// The server's first message: what the store holds of the session already.
private struct Hello: OutputRow {
    static let columns = ["session", "stored", "last_event_id", "last_position"]
    var session: UUID
    var stored: UInt64
    var last: RecordedEvent?

    init(log: EventLog, session: UUID) throws {
        self.session = session
        let progress = try SessionProgress(of: session, in: log)
        stored = progress.stored
        last = progress.last
    }

    func write(to fields: inout Fields) {
        fields.field("session", id: session)
        fields.field("stored", stored)
        fields.field("last_event_id", id: last?.id)
        fields.field("last_position", last?.position)
    }
}

/// `{"seq": n, "position": p, "duplicate": bool}`: the n-th message of this connection is durable at p.
private struct Acknowledgement: OutputRow {
    static let columns = ["seq", "position", "duplicate"]
    var sequence: Int
    var position: UInt64
    var duplicate: Bool

    func write(to fields: inout Fields) {
        fields.field("seq", sequence)
        fields.field("position", position)
        fields.field("duplicate", duplicate)
    }
}

/// `{"seq": n, "problem": {RFC 9457}}`: the n-th message was not stored; the stream stays open.
private struct Refusal: OutputRow {
    static let columns = ["seq", "problem"]
    var sequence: Int
    var problem: Problem

    func write(to fields: inout Fields) {
        fields.field("seq", sequence)
        fields.field("problem", object: ProblemDocument(problem: problem).write)
    }
}
