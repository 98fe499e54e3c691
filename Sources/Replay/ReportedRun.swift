import EventLog
import Foundation
import Ingest
import Migrations
import SessionLog
import SessionModel
import SessionStoreTesting

/// A run an app reports of a stored session: what the app transcribed when its own test fed it the
/// session's audio (a fixture pack's recording, docs/APP-TESTING.md). Stored as `replay --drive`
/// stores a run (the source's subject and locale, a `replay.run` record with the label, the transcript,
/// the end), so the Runs page and `compare --baseline --candidate` judge app versions as they judge
/// recognisers. The run's id is the app's: sending the same report again stores nothing twice.
public struct ReportedRun: Sendable {
    /// One committed segment of the app's transcript, in order, as the app sent it. Untimed: an app's test knows what
    /// it showed, not where in the recording each segment lies, so commits are stored at 0 ms and compared by words.
    public typealias Segment = RunReport.Segment

    public var run: UUID
    public var source: UUID
    /// The app's version, as the Runs page and `compare` name it.
    public var label: String
    /// What produced it, such as the test's name; kept as the run record's command.
    public var system: String
    public var segments: [Segment]
    /// Wall clock, milliseconds since 1970, when the app's test started and ended.
    public var startedAt: Int64
    public var endedAt: Int64

    public init(run: UUID, source: UUID, label: String, system: String, segments: [Segment], startedAt: Int64, endedAt: Int64) {
        self.run = run
        self.source = source
        self.label = label
        self.system = system
        self.segments = segments
        self.startedAt = startedAt
        self.endedAt = endedAt
    }

    /// The run record's speed: it marks a reported run, whose commits carry no time of their own.
    public static let speed = "app"

    /// The longest label and system name, in Unicode scalars (JSON Schema's `maxLength`).
    public static let maximumNameLength = 256

    /// Why this report cannot be stored as it is, naming the field, or nil.
    public var problem: String? {
        for (name, value) in [("label", label), ("system", system)] where value.isEmpty || value.unicodeScalars.count > Self.maximumNameLength {
            return "\(name) must be 1 to \(Self.maximumNameLength) characters"
        }
        if segments.isEmpty { return "segments holds no segment: send the app's transcript, one segment at least" }
        for (index, segment) in segments.enumerated() {
            if segment.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return "segments[\(index)].text is empty" }
        }
        if endedAt < startedAt { return "it ends before it starts" }
        return nil
    }

    /// Stores the run in `log`.
    /// - Throws: ``ReplayDriveError/sourceUnusable(_:)`` when the source is not a session that can be
    ///   run (no `session.started` left, or itself a run); ingest's errors; the store's;
    ///   ``ReplayDriveError/runIDTaken(_:)`` when the run's id is a run stored already with another report.
    public func store(in log: EventLog) async throws -> IngestReport {
        let started = try Self.started(of: source, in: log)
        let storedAlready = try log.streamMetadata(SessionStreams.session(run)) != nil
        do {
            return try await SessionIngest(log: log).ingest(events: events(sourceStarted: started))
        } catch is IngestFailure where storedAlready {
            // The same report again is stored already event for event; a refusal can only be other content under its ids.
            throw ReplayDriveError.runIDTaken("run \(run.uuidString.lowercased()) is stored already with another report; "
                                              + "a run id names one report: send this one under a new id")
        }
    }

    /// The run as a session: started with the source's subject and locale at the source's start, the
    /// `replay.run` record, a commit per segment (at 0 ms, in order), ended.
    func events(sourceStarted: (occurredAt: Int64, payload: SessionStarted)) -> [SessionEvent] {
        var started = sourceStarted.payload
        started.device = "app"
        started.appVersion = label
        started.source = .replay
        let record = ReplayRun(source: source, command: system, label: label, speed: Self.speed, startedAt: startedAt, endedAt: endedAt)
        let at = sourceStarted.occurredAt
        var events = [SessionEvent(id: ReplayDriveResult.eventID(run: run, index: -1), session: run, occurredAt: at, payload: .sessionStarted(started)),
                      SessionEvent(id: ReplayDriveResult.eventID(run: run, index: -2), session: run, occurredAt: at, payload: .replayRun(record))]
        for (index, segment) in segments.enumerated() {
            let commit = TranscriptCommitted(segment: "app-\(index + 1)", text: segment.text, startMilliseconds: 0, endMilliseconds: 0,
                                             speaker: segment.speaker)
            events.append(SessionEvent(id: ReplayDriveResult.eventID(run: run, index: index), session: run, occurredAt: at,
                                       payload: .transcriptCommitted(commit)))
        }
        events.append(SessionEvent(id: ReplayDriveResult.eventID(run: run, index: -3), session: run, occurredAt: at,
                                   payload: .sessionEnded(SessionEnded(reason: "app run reported"))))
        return events
    }

    /// The source's `session.started`, and when it happened.
    static func started(of source: UUID, in log: EventLog) throws -> (occurredAt: Int64, payload: SessionStarted) {
        let name = source.uuidString.lowercased()
        let codec = SessionMigrations.codec
        let first = try log.readStream(SessionStreams.session(source), maxCount: 2).map { try codec.decode($0).event }
        if first.contains(where: { if case .replayRun = $0.payload { true } else { false } }) {
            throw ReplayDriveError.sourceUnusable("session \(name) is a run; report a run of the session it replayed")
        }
        guard let event = first.first, case .sessionStarted(let started) = event.payload else {
            throw ReplayDriveError.sourceUnusable("session \(name) has no session.started left (erased or purged), so a run of it has no subject")
        }
        return (event.occurredAt, started)
    }
}
