import Foundation
import Migrations
import SessionModel

/// One event a system under test wrote, in the ingest shape; the envelope fields it left out are nil.
public struct ProducedEvent: Hashable, Sendable {
    /// What happened.
    public var payload: SessionPayload
    /// `at`, when the system gave it.
    public var occurredAt: Int64?
    /// `id`, when the system gave it.
    public var id: UUID?
    /// The 1-based line of the system's output it came from, or its place among an in-process target's events.
    public var line: Int

    /// An event produced by a system; leave `occurredAt` and `id` nil to have the driver fill them.
    public init(_ payload: SessionPayload, occurredAt: Int64? = nil, id: UUID? = nil, line: Int = 0) {
        self.payload = payload
        self.occurredAt = occurredAt
        self.id = id
        self.line = line
    }
}

/// Reads the lines a system under test writes while a session is replayed into it (`replay --drive`):
/// the ingest shape of docs/INGEST.md, with the same checks, except that `session` may be left out (it
/// must otherwise name the session replayed), `at` and `id` may be left out, and only the types the
/// system is to produce are taken.
public struct ProducedEventParser: Sendable {
    /// What a system under test produces: its transcript.
    public static let producedTypes: Set<EventType> = [.transcriptPartial, .transcriptCommitted]

    /// The session replayed into the system.
    public let session: UUID
    private let parser = IngestLineParser(hashIdentifier: { _ in [] }, codec: SessionMigrations.codec)

    /// A parser of what a system writes while `session` is replayed into it.
    public init(session: UUID) {
        self.session = session
    }

    /// The event on `line`, or every problem it has.
    public func parse(_ bytes: Data, line: Int) -> Result<ProducedEvent, IngestFailure> {
        parser.parseLine(bytes, line: line, envelope: .produced(session: session, allowedTypes: Self.producedTypes)).map {
            ProducedEvent($0.payload, occurredAt: $0.occurredAt, id: $0.id, line: line)
        }
    }
}
