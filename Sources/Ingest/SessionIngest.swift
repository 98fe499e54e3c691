import Audio
import EventLog
import Failures
import Foundation
import Migrations
import SessionLog
import SessionModel

/// Every problem of a rejected ingest file; nothing of it was appended.
public struct IngestFailure: CodedError, Sendable {
    public var code: ErrorCode<IngestFailure> { .invalidEvents }
    /// The problems found, sorted by line and field: every one, up to ``SessionIngest/maximumListedProblems``.
    public var problems: [IngestProblem]
    /// Problems found beyond those listed.
    public var unlisted: Int = 0
    /// How many problems were found in all.
    public var count: Int { problems.count + unlisted }
    public var description: String {
        "\(count) \(count == 1 ? "line has a problem" : "problems"); nothing was appended"
    }
    /// The first problem, naming its line and field (the others are in ``problems``).
    public var message: String { problems.first.map { "\($0)" } ?? description }
}

extension ErrorCode where Domain == IngestFailure {
    /// Lines of the input that ingest refuses.
    public static let invalidEvents = Self("invalid events", .invalidData)
}

/// What an ingest appended.
public struct IngestReport: Hashable, Sendable {
    /// Events in the input.
    public var lines: Int
    /// Events appended to session streams (consent copies not counted).
    public var appended: Int
    /// Events left out because their ids were stored already (a resent file).
    public var duplicates: Int
    /// Sessions the input touched.
    public var sessions: Int
    /// With ``SessionIngest/recordsPositions``: the global position of each event line's event, in input
    /// order, whether appended now or stored before (a resend gets the positions of the first send).
    public var positions: [UInt64]
    /// With ``SessionIngest/recordsPositions``: for each event line, in input order, whether its event was stored
    /// already (before this ingest, or by an earlier line of it) rather than appended by this line.
    public var duplicateLines: [Bool]

    /// A report of these counts.
    public init(lines: Int, appended: Int, duplicates: Int, sessions: Int, positions: [UInt64] = [], duplicateLines: [Bool] = []) {
        self.lines = lines
        self.appended = appended
        self.duplicates = duplicates
        self.sessions = sessions
        self.positions = positions
        self.duplicateLines = duplicateLines
    }
}

/// Ingests NDJSON files of session events (docs/INGEST.md), all or nothing: a file with any bad
/// line appends nothing and every problem is reported; a good file is appended in one atomic
/// transaction, each session's events to its stream and each consent event also to its subject's
/// consent stream. Events already stored (by id) are skipped, so a client may send a file again safely.
///
/// The file is read, checked, coded and sealed one window of lines at a time inside that one
/// transaction (``EventLog/appendInOneTransaction(_:)``), so memory does not grow with the file;
/// once a problem is found, the rest is only checked, and the transaction is aborted at the end.
public struct SessionIngest: Sendable {
    /// The store appended to.
    public let log: EventLog
    /// The codec that encodes new events and reads stored ones.
    public let codec: SessionEventCodec
    /// Told how far the ingest is: for a progress display.
    public var onProgress: (@Sendable (IngestProgress) -> Void)?
    /// Whether the report lists each event's position (``IngestReport/positions``): 8 bytes per event line.
    public var recordsPositions = false
    /// When set, every event must name this session (a live stream's): one naming another is a problem of its line.
    public var session: UUID?
    /// A rejected file lists at most this many problems (and counts the rest).
    public static let maximumListedProblems = 1000

    /// Ingest into `log`, with the codec that reads every schema version.
    public init(log: EventLog, codec: SessionEventCodec = SessionMigrations.codec) {
        self.log = log
        self.codec = codec
    }

    /// Checks and appends NDJSON in memory; throws ``IngestFailure`` listing the problems when any line is bad.
    public func ingest(_ data: Data) async throws -> IngestReport {
        try await ingest(.bytes(data))
    }

    /// Checks and appends the NDJSON of `source`; throws ``IngestFailure`` listing the problems when any line is bad.
    public func ingest(_ source: IngestSource) async throws -> IngestReport {
        let log = self.log, codec = self.codec, onProgress = self.onProgress, recordsPositions = self.recordsPositions
        let parser = IngestLineParser(hashIdentifier: { log.identifierHash($0) }, codec: codec, session: session)
        return try await log.appendInOneTransaction { appender in
            var reader = try LineWindowReader(source)
            var run = IngestRun(store: appender, codec: codec, recordsPositions: recordsPositions)
            while let lines = try reader.next() {
                let parsed = parallelMap(count: lines.count, workers: ProcessInfo.processInfo.activeProcessorCount,
                                         threshold: 256) { parser.parse(lines[$0].bytes, line: lines[$0].number) }
                if let window = try run.take(parsed) { try run.appended(window, results: try appender.append(window.parts)) }
                onProgress?(IngestProgress(done: reader.bytesRead, total: reader.totalBytes))
            }
            return try run.finish()
        }
    }

    /// The event lines of `data` as ingest reads them: each without its line end, blank ones left out (a live message
    /// must be exactly one).
    package static func eventLines(of data: Data) throws -> [Data] {
        var reader = try LineWindowReader(.bytes(data))
        var lines: [Data] = []
        while let window = try reader.next() { lines += window.map(\.bytes) }
        return lines
    }

    /// Inputs at most this large may take ``ingestConcurrently(_:)``'s path.
    public static let concurrentInputLimit = 1 << 20

    /// Checks and appends a small NDJSON input (up to ``concurrentInputLimit`` bytes and one window of
    /// lines; a larger one goes the way of ``ingest(_:)-(IngestSource)``) as ``ingest(_:)-(IngestSource)``
    /// does, but checked against the committed store outside the writer and appended through group
    /// commit, together with other writers' appends: for many clients sending a few events each (a
    /// server). Every session stream it read must still be as it was read when its events are written
    /// (``ExpectedVersion/exact(_:)``); when another writer appended to one in between, the input is
    /// checked again against the store as it is then.
    public func ingestConcurrently(_ data: Data) async throws -> IngestReport {
        guard data.count <= Self.concurrentInputLimit else { return try await ingest(.bytes(data)) }
        let parser = IngestLineParser(hashIdentifier: { log.identifierHash($0) }, codec: codec, session: session)
        var reader = try LineWindowReader(.bytes(data))
        let parsed = (try reader.next() ?? []).map { parser.parse($0.bytes, line: $0.number) }
        guard try reader.next() == nil else { return try await ingest(.bytes(data)) }
        for _ in 0..<Self.concurrentAttempts {
            let store = NotedReads(log: log)
            var run = IngestRun(store: store, codec: codec, recordsPositions: recordsPositions)
            guard var window = try run.take(parsed) else { return try run.finish() }
            for index in window.parts.indices where window.parts[index].keyScope == .stream {
                window.parts[index].expectedVersion = try store.expectedVersion(of: window.parts[index].stream)
            }
            do {
                try run.appended(window, results: try await log.append(window.parts))
            } catch let error as EventLogError where error.code == .wrongExpectedVersion {
                continue  // another writer appended to one of these sessions since it was read: check again
            }
            return try run.finish()
        }
        return try await ingest(.bytes(data))
    }

    /// How often ``ingestConcurrently(_:)`` checks again before it takes the write lock instead.
    static let concurrentAttempts = 4

    /// Checks and appends events built in code (a fixture session, an import, a replay run) as a file's
    /// lines are; a problem's `line` is the event's 1-based place in `events`. Of the types the store
    /// writes itself, only a replay run's record (`replay.run`) may be among them.
    public func ingest(events: [SessionEvent]) async throws -> IngestReport {
        let codec = self.codec
        return try await log.appendInOneTransaction { appender in
            var run = IngestRun(store: appender, codec: codec, storeWrittenAllowed: [.replayRun])
            for start in stride(from: 0, to: events.count, by: 4096) {
                let lines = (start..<min(start + 4096, events.count)).map { Result<IngestedEvent, IngestFailure>.success(IngestedEvent(events[$0], line: $0 + 1, codec: codec)) }
                if let window = try run.take(lines) { try run.appended(window, results: try appender.append(window.parts)) }
            }
            return try run.finish()
        }
    }
}
