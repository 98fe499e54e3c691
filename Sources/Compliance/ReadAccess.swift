import EventLog
import Foundation
import SessionLog
import SessionModel

/// The one door to a person's data: who reads and why, decided once and recorded before anything is returned.
///
/// The CLI's commands, the server's routes and its console all read session content (a transcript, events,
/// audio, a report, a replay, a comparison, an export) through this handle, so that the access policy is
/// applied and the access log written in one place (docs/COMPLIANCE.md, "Access log"):
///
/// ```swift
/// let access = try ReadAccess(log: log, actor: "alice", purpose: "ticket 42")   // the policy decides here
/// let view = try await access.read(.transcript, of: [id]) { try runner.transcript(of: id) }
/// ```
///
/// - A read the policy refuses fails when the handle is made: nothing is recorded and nothing is read.
/// - Each ``read(_:of:_:)`` appends one record (`access.read`, or `export.performed` for an export) and only then
///   runs the read; ``read(_:_:sessions:)`` runs a read whose sessions its result names, then records them, then
///   returns it.
/// - A store that is a read-only replica (an auditor's copy, a hot standby) cannot take a record: the handle says
///   so (``unrecorded``) and the read goes on. A request that gets no content (HTTP `HEAD`) is not recorded either.
public struct ReadAccess: Sendable {
    /// What reads: the command (or route) whose name the record carries.
    public enum Command: Hashable, Sendable {
        case transcript, events, audio, report, replay, compare, runs, console
        /// The log's tail, every session's events after a position: its record names no session.
        case tail
        /// An export in `format` (`json`, `csv`, `vtt`, `srt`, `bundle`), of one person's sessions when `subject` is given.
        case export(format: String, subject: SubjectHash?)

        /// The name the access log gives it (`audit access`'s `command`).
        public var name: String {
            switch self {
            case .transcript: "transcript"
            case .events: "events"
            case .audio: "audio"
            case .report: "report"
            case .replay: "replay"
            case .compare: "compare"
            case .runs: "runs"
            case .tail: "tail"
            case .console: "console"
            case .export(let format, _): "export \(format)"
            }
        }
    }

    /// Why a read through this handle leaves no record.
    public enum Unrecorded: Sendable {
        /// The store is a read-only replica here: it cannot take a record.
        case readOnlyReplica
        /// The request gets no content (HTTP `HEAD`): nothing is read out.
        case noContent
    }

    /// The store read.
    public let log: EventLog
    /// Who reads.
    public let actor: String
    /// Why, when the reader said.
    public let purpose: String?
    /// Why reads through this handle are not recorded; nil when each is.
    public let unrecorded: Unrecorded?

    /// A handle for `actor`'s reads of `log`, for `purpose`: the store's access policy decides here.
    /// - Parameter deliversContent: false for a request answered without content (HTTP `HEAD`), which is decided
    ///   like any read but not recorded.
    /// - Throws: ``ComplianceError/Code/purposeRequired`` when the policy requires a purpose and none is given.
    public init(log: EventLog, actor: String, purpose: String?, deliversContent: Bool = true) throws {
        try AccessLog(log: log).check(purpose: purpose)
        self.log = log
        self.actor = actor
        self.purpose = purpose
        if try log.isReadOnlyReplica() {
            unrecorded = .readOnlyReplica
        } else {
            unrecorded = deliversContent ? nil : .noContent
        }
    }

    /// Records that `command` reads `sessions`, then reads: for a read whose sessions are known before it starts,
    /// and whose output may be streamed as it reads. A read of no session is not recorded (but the tail's, of all).
    @discardableResult
    public func read<T>(_ command: Command, of sessions: [UUID], _ body: () async throws -> T) async throws -> T {
        try await record(command, sessions)
        return try await body()
    }

    /// Reads, records the sessions `sessions` says the result holds, then returns the result: for a read that
    /// finds what it reads as it goes (every labelled run, a comparison's pairs). Nothing read is returned
    /// unrecorded; a read that holds no session is not recorded.
    public func read<T>(_ command: Command, _ body: () async throws -> T, sessions: (T) -> [UUID]) async throws -> T {
        let result = try await body()
        try await record(command, sessions(result))
        return result
    }

    private func record(_ command: Command, _ sessions: [UUID]) async throws {
        guard unrecorded == nil, !sessions.isEmpty || command == .tail else { return }
        let access = AccessLog(log: log)
        if case .export(let format, let subject) = command {
            try await access.record(ExportPerformed(actor: actor, format: format, sessions: sessions, subject: subject, purpose: purpose),
                                    at: log.now)
        } else {
            try await access.record(AccessRead(actor: actor, purpose: purpose, command: command.name, sessions: sessions), at: log.now)
        }
    }
}
