import Audio
import EventLog
import Exports
import Foundation
import HexCoding
import Migrations
import Output
import SessionLog
import SessionModel

/// A stored session as a condition suite takes it: its first recording's audio, its committed
/// transcript as a timed script (the truth a derived session keeps), its pauses, who it belongs to,
/// and its labels.
public struct SuiteSource: Sendable {
    public var session: UUID
    /// The subject the session belongs to: its derived sessions belong to them too, so that erasing
    /// the subject erases those as well.
    public var subject: SubjectHash
    public var locale: String
    public var labels: [String: String]
    /// The recording's id and samples.
    public var recording: String
    public var audio: DecodedAudio
    /// Segments (committed text, corrections applied, speaker, span in the recording), silences between
    /// them and the session's pauses, in recording milliseconds.
    public var script: FixtureScript
    /// When the recording started (milliseconds since 1970): derived sessions start there too.
    public var recordingStartedAt: Int64
    /// The policy version under which recording was consented to.
    public var consentPolicyVersion: String?

    /// The names of the speakers its segments name, sorted; empty when none does.
    public var speakers: [String] { Set(script.segments.compactMap(\.speaker)).sorted() }

    /// `session` as stored in `log`.
    /// - Throws: ``ConditionError`` when the store does not hold it or it cannot be derived from (a run,
    ///   erased, no recording or no committed segment, consent to recording or transcription not granted
    ///   now); the store's errors.
    public static func load(_ session: UUID, from log: EventLog) throws -> SuiteSource {
        let name = Hex.uuid(session)
        let codec = SessionMigrations.codec
        let events = try log.readStream(SessionStreams.session(session), skippingErased: true) { try codec.decode($0) }
        var started: SessionStarted?
        var consent: [String: (granted: Bool, policy: String?)] = [:]
        var pauses: [(at: Int64, paused: Bool)] = []
        for recorded in events {
            switch recorded.event.payload {
            case .sessionStarted(let value): started = value
            case .consentGranted(let change): consent[change.consentType] = (true, change.policyVersion)
            case .consentRevoked(let change): consent[change.consentType] = (false, change.policyVersion)
            case .sessionPaused: pauses.append((recorded.event.occurredAt, true))
            case .sessionResumed: pauses.append((recorded.event.occurredAt, false))
            case .replayRun:
                throw ConditionError(.unusableSource, "session \(name) is a run of a replay; derive from the session it replayed")
            default: break
            }
        }
        guard !events.isEmpty else { throw ConditionError(.unknownSource, "the store holds no session \(name)") }
        guard let started, let subject = started.subject else {
            throw ConditionError(.unusableSource, "session \(name) has no session.started left (erased or purged)")
        }
        for type in ["audio_recording", "transcription"] where consent[type]?.granted != true {
            throw ConditionError(.unusableSource, "session \(name): its subject has not granted \(type) consent, so it is not derived from")
        }
        guard let first = RecordingExport.recordings(in: events).first else {
            throw ConditionError(.unusableSource, "session \(name) has no recording")
        }
        let (samples, format) = try RecordingExport.samples(of: first, in: events, session: name)
        let timeline = TranscriptTimeline(session: session, events: events.map(\.event))
        guard !timeline.segments.isEmpty, let recordingStartedAt = timeline.recordingStartedAt else {
            throw ConditionError(.unusableSource, "session \(name) has no committed transcript segment to keep as the truth")
        }
        let script = FixtureScript(
            segments: timeline.segments.map { segment in
                FixtureScript.Segment(text: segment.text, speaker: segment.speaker, startMilliseconds: Int(segment.startMilliseconds),
                                      endMilliseconds: Int(segment.endMilliseconds))
            },
            pauses: Self.spans(pauses, from: recordingStartedAt), locale: started.locale
        ).withSilencesBetweenSegments()
        return SuiteSource(session: session, subject: subject, locale: started.locale, labels: started.labels,
                           recording: first.recording, audio: DecodedAudio(samples: samples, format: format), script: script,
                           recordingStartedAt: recordingStartedAt, consentPolicyVersion: consent["audio_recording"]?.policy)
    }

    /// Paused-to-resumed spans, in milliseconds after `start`; a pause never resumed is left out.
    private static func spans(_ transitions: [(at: Int64, paused: Bool)], from start: Int64) -> [FixtureScript.Span] {
        var spans: [FixtureScript.Span] = []
        var pausedAt: Int64?
        for transition in transitions {
            if transition.paused {
                if pausedAt == nil { pausedAt = transition.at }
            } else if let from = pausedAt {
                spans.append(FixtureScript.Span(startMilliseconds: Int(max(0, from - start)), endMilliseconds: Int(max(0, transition.at - start))))
                pausedAt = nil
            }
        }
        return spans
    }
}

extension FixtureScript {
    /// The script with its silences recomputed as the gaps between consecutive segments.
    func withSilencesBetweenSegments() -> FixtureScript {
        var script = self
        script.silences = zip(segments, segments.dropFirst()).compactMap { one, next in
            next.startMilliseconds > one.endMilliseconds
                ? Span(startMilliseconds: one.endMilliseconds, endMilliseconds: next.startMilliseconds) : nil
        }
        return script
    }
}
