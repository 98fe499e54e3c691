import EventLog
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Ingest
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
            try await outbound.write(.text(String(decoding: try Hello(log: log, session: session).json, as: UTF8.self)))
            // One task reads the socket while the other appends what arrived meanwhile, a batch to a commit.
            let inbox = LiveInbox<WebSocketMessage>(capacity: Self.inboxCapacity, byteBudget: SessionIngest.concurrentInputLimit)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    defer { inbox.finish() }
                    var room = inbox.room.makeAsyncIterator()
                    for try await message in inbound.messages(maxSize: configuration.maximumLineBytes) {
                        while !inbox.offer(message, bytes: LiveAnswers.bytes(of: message)) {
                            guard await room.next() != nil else { return }
                        }
                    }
                }
                var answering = LiveAnswers(appender: appender, session: session, stopOnRefusal: stopOnRefusal)
                var arrivals = inbox.arrivals.makeAsyncIterator()
                while true {
                    let (messages, finished) = inbox.takeAll()
                    if !messages.isEmpty {
                        for answer in try await answering.answers(to: messages) {
                            try await outbound.write(.text(String(decoding: answer, as: UTF8.self)))
                        }
                    } else if finished {
                        break
                    } else if await arrivals.next() == nil {
                        try Task.checkCancellation()
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    /// Messages read ahead of the appends, at most (and a batch's bytes, at most what ingest checks beside other
    /// requests): a client's window (64) and room for one that sends more.
    static let inboxCapacity = 256

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
