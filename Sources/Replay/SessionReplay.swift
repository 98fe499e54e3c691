import EventLog
import Foundation
import HexCoding
import Ingest
import Migrations
import Output
import Projections
import SessionAudio
import SessionLog
import SessionModel

/// Re-drives one stored session's events in order through a virtual clock, folding the transcript
/// and the session summary as it goes. Drive it step by step (`next()`) and look at `transcript`
/// and `summary` between steps, or let `run` go to the end.
///
/// The trace digest covers each step's number, virtual time, event type, event number, the event's
/// content (envelope and payload; audio by its PCM's SHA-256) and the views after it. It never covers
/// what a store adds: event ids, positions, recorded-at times, keys or nonces. Subject hashes, which
/// are keyed per store, enter as pseudonyms (the first subject seen is subject 1, …). So the same
/// session ingested into two stores replays to the same digest.
public struct SessionReplay: Sendable {
    /// The session replayed.
    public let session: UUID
    /// How fast the virtual clock runs.
    public let speed: ReplaySpeed
    /// Stop after the last event at or before this many virtual milliseconds.
    public let until: Int64?
    /// The transcript as of the last step.
    public private(set) var transcript: TranscriptView
    /// The session summary as of the last step.
    public private(set) var summary: SessionSummary

    private let source: ReplaySource
    private let sleep: @Sendable (Duration) async throws -> Void
    private var index = 0
    private var timeline = VirtualTimeline()
    private var trace = SHA256()
    private var viewsChain: [UInt8] = []
    private var pseudonyms: [SubjectHash: SubjectHash] = [:]
    /// The summary's subject and its pseudonym, looked up again only when the subject changes.
    private var summaryPseudonym: (subject: SubjectHash, bytes: [UInt8])?
    private let codec = SessionMigrations.codec

    /// - Parameters:
    ///   - events: the session's own stream, in order.
    ///   - sleep: how a wall-clock wait is taken (tests pass one that records instead of sleeping).
    public init(session: UUID, events: [RecordedSessionEvent], speed: ReplaySpeed = .max, until: Int64? = nil,
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) {
        self.init(session, .events(events.filter { !$0.isCopy && $0.event.session == session }), speed, until, sleep)
    }

    /// The replay of `session` as stored in `log` (its events now); it starts while later events are
    /// still being read.
    public static func load(_ session: UUID, from log: EventLog, speed: ReplaySpeed = .max, until: Int64? = nil,
                            sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) })
        throws -> SessionReplay {
        SessionReplay(session, .loading(try SessionLoader(session: session, log: log)), speed, until, sleep)
    }

    private init(_ session: UUID, _ source: ReplaySource, _ speed: ReplaySpeed, _ until: Int64?,
                 _ sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.session = session
        self.source = source
        self.speed = speed
        self.until = until
        self.sleep = sleep
        transcript = TranscriptView(session: session)
        summary = SessionSummary(session: session)
        trace.update("sessionstore replay trace v1")
    }

    /// Events in the replay (up to `until`, when given).
    public var eventCount: Int { source.count }

    /// The trace digest so far: 64 lowercase hex characters.
    public var digest: String { Hex.string(trace.digest()) }

    /// Waits the event's virtual gap (scaled by the speed), applies it to the views and returns the
    /// step; nil at the end (or past `until`).
    public mutating func next() async throws -> ReplayStep? {
        guard let recorded = try await source.event(at: index) else { return nil }
        let (wait, backwards) = timeline.gap(to: recorded.event.occurredAt)
        if let until, timeline.now + wait > until { return nil }
        let wall = speed.wallMilliseconds(forVirtual: wait)
        if wall > 0 { try await sleep(.microseconds(Int64(wall * 1000))) }
        timeline.advance(to: recorded.event.occurredAt)
        index += 1

        transcript.apply(recorded.event)
        summary.apply(recorded.event)
        viewsChain = viewsDigest(after: recorded.event)
        let step = ReplayStep(number: index, virtualMilliseconds: timeline.now, waitMilliseconds: wait,
                              clockWentBackwardsBy: backwards, event: recorded, viewsDigestBytes: viewsChain)
        try addToTrace(step)
        return step
    }

    /// Runs to the end, handing each step to `onStep`; returns the trace digest.
    public mutating func run(_ onStep: (ReplayStep) throws -> Void = { _ in }) async throws -> String {
        while let step = try await next() { try onStep(step) }
        return digest
    }

    private mutating func addToTrace(_ step: ReplayStep) throws {
        var fields = WireWriter()
        fields.uint(1, UInt64(step.number))
        fields.sint(2, step.virtualMilliseconds)
        fields.string(3, step.event.event.type.rawValue)
        fields.uint(4, step.event.streamNumber)
        fields.bytes(5, try contentBytes(of: step.event.event))
        fields.bytes(6, viewsChain)
        trace.updateField(fields.bytes)
    }

    /// The event as its codec writes it, with subjects as pseudonyms and audio as its PCM's digest.
    private mutating func contentBytes(of event: SessionEvent) throws -> [UInt8] {
        var event = event
        switch event.payload {
        case .sessionStarted(var started):
            started.subject = started.subject.map { pseudonym($0) }
            event.payload = .sessionStarted(started)
        case .consentGranted(var change):
            change.subject = change.subject.map { pseudonym($0) }
            event.payload = .consentGranted(change)
        case .consentRevoked(var change):
            change.subject = change.subject.map { pseudonym($0) }
            event.payload = .consentRevoked(change)
        case .recordingChunk(var chunk):
            let digest = try chunk.pcmDigest()
            chunk.audio = .pcm([])
            chunk.frames = nil
            chunk.pcmSHA256 = digest
            event.payload = .recordingChunk(chunk)
        default:
            break
        }
        return codec.encode(event).data
    }

    private mutating func pseudonym(_ subject: SubjectHash) -> SubjectHash {
        if let known = pseudonyms[subject] { return known }
        let made = SubjectHash(bytes: SHA256.hash(Array("replay subject \(pseudonyms.count + 1)".utf8)))!
        pseudonyms[subject] = made
        return made
    }

    /// SHA-256 over the previous views digest, the summary's scalar fields and the part of it the
    /// event touched (its recording or consent type), and what the event changed in the transcript
    /// (its segment's committed text or current partial): constant work per step, whatever the
    /// session's length.
    private mutating func viewsDigest(after event: SessionEvent) -> [UInt8] {
        var state = WireWriter()
        state.uint(1, UInt64(SessionSummary.Status.allCases.firstIndex(of: summary.status)!))
        if let subject = summary.subject, summaryPseudonym?.subject != subject {
            summaryPseudonym = (subject, pseudonym(subject).bytes)
        }
        state.bytes(2, summaryPseudonym?.bytes ?? [])
        state.optionalString(3, summary.locale)
        state.optionalSint(4, summary.startedAt)
        state.optionalSint(5, summary.endedAt)
        state.optionalSint(6, summary.lastEventAt)
        state.uint(7, UInt64(summary.segments))
        state.uint(8, UInt64(summary.words))
        state.uint(9, summary.audioMilliseconds)
        if let recording = Self.recording(of: event.payload), let entry = summary.recordings[recording] {
            state.string(10, recording)
            state.uint(11, UInt64(entry.sampleRate))
            state.uint(12, UInt64(entry.channels))
            state.uint(13, entry.frames)
        }
        switch event.payload {
        case .consentGranted(let change), .consentRevoked(let change):
            state.string(14, change.consentType)
            state.bool(15, summary.consent[change.consentType] ?? false)
        default: break
        }
        if let segment = Self.transcriptSegment(of: event.payload) {
            state.string(16, segment)
            if let committed = transcript.committedSegment(segment) {
                state.string(17, committed.text)
                state.optionalString(18, committed.correction)
            } else if let partial = transcript.partial(of: segment) {
                state.uint(19, UInt64(partial.revision))
                state.string(20, partial.text)
            }
        }
        state.uint(21, UInt64(transcript.segments.count))
        var hash = SHA256()
        hash.update(viewsChain)
        hash.updateField(state.bytes)
        return hash.digest()
    }

    static func recording(of payload: SessionPayload) -> String? {
        switch payload {
        case .recordingStarted(let started): started.recording
        case .recordingChunk(let chunk): chunk.recording
        case .recordingStopped(let stopped): stopped.recording
        default: nil
        }
    }

    static func transcriptSegment(of payload: SessionPayload) -> String? {
        switch payload {
        case .transcriptPartial(let partial): partial.segment
        case .transcriptCommitted(let commit): commit.segment
        case .transcriptCorrected(let correction): correction.segment
        default: nil
        }
    }
}
