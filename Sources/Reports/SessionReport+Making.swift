import Audio
import Compliance
import EventLog
import Exports
import Foundation
import HexCoding
import Output
import Projections
import Replay
import SessionLog
import SessionModel

extension SessionReport {
    /// Gathers the report of `session`: its summary, transcript and consent from the persisted views,
    /// its events by replaying it with `replay --verify` (which reads, and so authenticates, every
    /// record of the session), its `audit check` violations, and its first recording.
    /// - Parameter listedRuns: the sessions driven from `session`, when the caller keeps the session list (the
    ///   server); by default they are found in the persisted session list, which is then read whole.
    package static func make(_ session: UUID, from log: EventLog, options: Options = Options(),
                            listedRuns: [SessionSummary]? = nil) async throws -> SessionReport {
        let exporter = try Exporter(log: log)
        let exported = try exporter.load(session)
        var report = SessionReport(summary: exported.summary, options: options)
        report.consent = exported.consent
        report.violations = try ViolationCheck(log: log).run(session: session, asOf: options.asOf).violations
        guard !exported.summary.isShredded else {
            let origin = exported.consent.first?.occurredAt ?? 0
            report.addConsentAndViolationMarkers(origin: origin)
            return report
        }
        var replay = try SessionReplay.load(session, from: log)
        var events: [RecordedSessionEvent] = []
        let verification = try await replay.verify(against: log) { events.append($0.event) }
        report.replayDigest = verification.digest
        report.replayDivergence = verification.divergence.map { "\($0)" }
        report.recordsAuthenticated = events.count

        let recording = RecordingExport.recordings(in: events).first
        let recordingStart = recording.flatMap { started in
            events.first { if case .recordingStarted(let other) = $0.event.payload { other == started } else { false } }?.event.occurredAt
        }
        let origin = recordingStart ?? exported.summary.startedAt ?? events.first?.event.occurredAt ?? 0
        report.fold(events, transcript: exported.transcript, origin: origin)
        report.addConsentAndViolationMarkers(origin: origin)
        report.runs = try await runs(of: session, listed: listedRuns, events: events, in: log)
        if let recording {
            let (samples, format) = try RecordingExport.samples(of: recording, in: events, session: Hex.uuid(session))
            let frames = samples.count / max(format.channels, 1)
            report.audioMilliseconds = format.sampleRate == 0 ? 0 : Int64(frames) * 1000 / Int64(format.sampleRate)
            report.durationMilliseconds = max(report.durationMilliseconds, report.audioMilliseconds)
            let width = SessionReportHTML.timelineWidth(report.durationMilliseconds)
            report.waveform = Waveform(samples: samples, channels: format.channels,
                                       columns: Int(Int64(width) * report.audioMilliseconds / max(report.durationMilliseconds, 1)))
            if options.includeAudio, frames > 0 {
                report.audio = Audio(mimeType: "audio/flac", bytes: try FLACChunkCodec.encode(samples, format: format))
            }
        }
        return report
    }

    /// The session's readable runs, each compared with it, by when their drives started.
    static func runs(of session: UUID, listed: [SessionSummary]?, events: [RecordedSessionEvent], in log: EventLog) async throws -> [Run] {
        let summaries = try (listed ?? {
            let runner = ProjectionRunner(log: log)
            try runner.catchUp()
            return try runner.runs(of: session)
        }()).filter { !$0.isShredded }
        guard !summaries.isEmpty else { return [] }
        let source = TranscriptTimeline(session: session, events: events.map(\.event))
        var runs: [Run] = []
        for summary in summaries {
            let comparison = TranscriptComparison(source: source, run: try await TranscriptTimeline.load(summary.session, from: log))
            runs.append(Run(run: summary.session, label: summary.runLabel, drivenAt: try LabeledRuns.driveStart(of: summary.session, in: log),
                            wordErrorRate: comparison.wordErrorRate, errors: comparison.alignment.errors,
                            referenceWords: comparison.alignment.reference.count))
        }
        return runs.sorted { ($0.drivenAt, $0.run.uuidString) < ($1.drivenAt, $1.run.uuidString) }
    }

    init(summary: SessionSummary, options: Options) {
        self.summary = summary
        self.options = options
    }

    private func text(_ text: String) -> String { options.redact ? ExportOptions.redacted : text }

    /// Segments with their revisions, pauses and playback from the session's events.
    private mutating func fold(_ events: [RecordedSessionEvent], transcript: TranscriptView, origin: Int64) {
        var revisions: [String: [Revision]] = [:]
        var pausedAt: Int64?
        var last: Int64 = 0
        for recorded in events {
            let at = recorded.event.occurredAt - origin
            last = max(last, at)
            switch recorded.event.payload {
            case .transcriptPartial(let partial):
                revisions[partial.segment, default: []].append(Revision(revision: partial.revision, text: text(partial.text)))
            case .sessionPaused:
                pausedAt = pausedAt ?? at
            case .sessionResumed, .sessionEnded:
                if let from = pausedAt { pauses.append(Pause(fromMilliseconds: from, toMilliseconds: max(at, from))) }
                pausedAt = nil
            case .playbackStarted(let started):
                markers.append(Marker(kind: .playbackStarted, atMilliseconds: Int64(started.positionMilliseconds), label: "played from here"
                                      + (started.rate.map { " at \(Self.number($0))×" } ?? "")))
            case .playbackPaused(let position):
                markers.append(Marker(kind: .playbackPaused, atMilliseconds: Int64(position.positionMilliseconds), label: "playback paused"))
            case .playbackSeeked(let seek):
                markers.append(Marker(kind: .playbackSeeked, atMilliseconds: Int64(seek.fromMilliseconds),
                                      toMilliseconds: Int64(seek.toMilliseconds),
                                      label: "seeked to \(SessionReportHTML.clock(Int64(seek.toMilliseconds)))"))
            case .playbackStopped(let position):
                markers.append(Marker(kind: .playbackStopped, atMilliseconds: Int64(position.positionMilliseconds), label: "playback stopped"))
            case .playbackCompleted(let completed):
                markers.append(Marker(kind: .playbackCompleted, atMilliseconds: last, label: "playback completed"
                                      + (completed.recording.isEmpty ? "" : " (\(completed.recording))")))
            default:
                break
            }
        }
        if let from = pausedAt { pauses.append(Pause(fromMilliseconds: from, toMilliseconds: max(last, from))) }
        segments = transcript.segments.map { segment in
            Segment(id: segment.id, text: text(segment.currentText),
                    committedText: segment.correction == nil ? nil : text(segment.text), speaker: segment.speaker,
                    startMilliseconds: Int64(segment.startMilliseconds), endMilliseconds: Int64(segment.endMilliseconds),
                    confidence: segment.confidence, revisions: revisions[segment.id] ?? [])
        }
        uncommitted = transcript.partials.map { partial in
            Segment(id: partial.segment, text: text(partial.text), committedText: nil, speaker: nil,
                    startMilliseconds: Int64(partial.startMilliseconds), endMilliseconds: Int64(partial.endMilliseconds),
                    confidence: nil, revisions: revisions[partial.segment] ?? [])
        }
        let ends = (segments + uncommitted).map(\.endMilliseconds) + markers.map { max($0.atMilliseconds, $0.toMilliseconds ?? 0) }
            + pauses.map(\.toMilliseconds)
        durationMilliseconds = max(durationMilliseconds, ends.max() ?? 0)
    }

    private mutating func addConsentAndViolationMarkers(origin: Int64) {
        for entry in consent {
            markers.append(Marker(kind: entry.granted ? .consentGranted : .consentRevoked, atMilliseconds: entry.occurredAt - origin,
                                  label: "\(entry.consentType) consent \(entry.granted ? "granted" : "revoked") (\(entry.method))"))
        }
        for violation in violations {
            markers.append(Marker(kind: .violation, atMilliseconds: violation.occurredAt - origin,
                                  label: "\(violation.rule.rawValue): \(violation.detail)"))
        }
        markers.sort { ($0.atMilliseconds, $0.kind.rawValue, $0.label) < ($1.atMilliseconds, $1.kind.rawValue, $1.label) }
        durationMilliseconds = max(durationMilliseconds, markers.map(\.atMilliseconds).max() ?? 0)
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.2f", value)
    }
}
