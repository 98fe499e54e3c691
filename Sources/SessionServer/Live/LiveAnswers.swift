import Foundation
import HummingbirdWebSocket
import Ingest
import Output

/// The answers to a live connection's messages, one each and in order: an acknowledgement once the message's event
/// is durable, or a refusal. The messages that arrived together are appended as one batch, a commit for all; a batch
/// that cannot be taken whole is answered message by message, each as it would have been alone.
struct LiveAnswers {
    let appender: Appender
    let session: UUID
    /// `stop_on_refusal=true`: after one refusal, every later message is refused unread.
    let stopOnRefusal: Bool
    /// The connection's messages so far.
    private var sequence = 0
    /// The first refused message, if any.
    private var refused: Int?

    init(appender: Appender, session: UUID, stopOnRefusal: Bool) {
        self.appender = appender
        self.session = session
        self.stopOnRefusal = stopOnRefusal
    }

    /// The answer to each of `messages`, the next ones of the connection. Throws what is not the message's fault
    /// (the store failing), which ends the connection: the client sends again what was not acknowledged.
    mutating func answers(to messages: [WebSocketMessage]) async throws -> [[UInt8]] {
        if messages.count > 1, let answers = await batch(messages) { return answers }
        var answers: [[UInt8]] = []
        for message in messages { answers.append(try await answer(message)) }
        return answers
    }

    /// A message's size, as the inbox counts it.
    static func bytes(of message: WebSocketMessage) -> Int {
        switch message {
        case .text(let text): text.utf8.count
        case .binary(let buffer): buffer.readableBytes
        }
    }

    /// A message's one event line, as ingest reads lines; nil for a message of several or none (blank), which is
    /// refused before anything of it is appended.
    static func line(_ text: String) -> Data? {
        guard let lines = try? SessionIngest.eventLines(of: Data(text.utf8)), lines.count == 1 else { return nil }
        return lines[0]
    }

    /// `messages` appended as one ingest, when each is one line of text and the ingest takes them all; nil (nothing
    /// stored) otherwise.
    private mutating func batch(_ messages: [WebSocketMessage]) async -> [[UInt8]]? {
        guard !(stopOnRefusal && refused != nil) else { return nil }
        var body = Data()
        for message in messages {
            guard case .text(let text) = message, let line = Self.line(text) else { return nil }
            body.append(line)
            body.append(0x0A)
        }
        guard let report = try? await appender.append(.bytes(body), session: session),
              report.positions.count == messages.count, report.duplicateLines.count == messages.count else { return nil }
        return messages.indices.map { index in
            sequence += 1
            return Acknowledgement(sequence: sequence, position: report.positions[index], duplicate: report.duplicateLines[index]).json
        }
    }

    /// The answer to one message, appended alone.
    private mutating func answer(_ message: WebSocketMessage) async throws -> [UInt8] {
        sequence += 1
        do {
            if let refused, stopOnRefusal {
                throw Problem(.afterRefusal, detail: "message \(refused) of this stream was refused; connect again to go on")
            }
            guard case .text(let text) = message else {
                throw Problem.badRequest("a message must be text: one event as a line of JSON")
            }
            guard let line = Self.line(text) else { throw Problem.badRequest("a message must hold exactly one event") }
            let report = try await appender.append(.bytes(line), session: session)
            guard let position = report.positions.first, let duplicate = report.duplicateLines.first else {
                throw Problem.badRequest("a message must hold exactly one event")
            }
            return Acknowledgement(sequence: sequence, position: position, duplicate: duplicate).json
        } catch let problem as Problem {
            refused = refused ?? sequence
            return Refusal(sequence: sequence, problem: problem).json
        }
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
