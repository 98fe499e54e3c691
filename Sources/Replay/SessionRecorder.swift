import Audio
import EventLog
import Foundation
import Ingest
import SessionAudio
import SessionModel

/// Builds a complete, deterministic dictation session from audio and its timed script: the same
/// audio, script, options and seed always give the same events, ids included, so recording a
/// fixture twice stores nothing new the second time.
///
/// The session: started; consent granted for `audio_recording` and `transcription`; the recording
/// started; a chunk at the end of every ~100 ms of audio; for each segment, partials that grow word
/// by word (now and then a wrong word that the next partial corrects, as recognisers do) and a commit
/// a seeded 80–400 ms after the segment ends; the session paused and resumed over the script's
/// pauses; the recording stopped; one playback of it; the session ended. Times follow the audio
/// timeline from `startAt`.
public struct SessionRecorder: Sendable {
    /// How the fixture session is built.
    public struct Options: Sendable {
        /// The session id; by default derived from the audio, the script and every other option.
        public var session: UUID?
        /// The raw subject id (hashed by the store).
        public var subject: String
        /// The seed of the partial revisions and mishearings: the same seed, the same events.
        public var seed: UInt64
        /// Milliseconds since 1970 of the recording's first sample.
        public var startAt: Int64
        /// The recording's id.
        public var recording: String
        /// How often a partial shows a wrong word before the next one corrects it.
        public var misrecognitionRate: Double
        /// The session's labels (``SessionLabels``); when there are any, they shape the session id too.
        public var labels: [String: String] = [:]
        /// How the consent to recording and transcription was given, and under which policy.
        public var consentMethod = "fixture_script"
        public var consentPolicyVersion: String? = "fixture-1"

        /// 2026-01-05T09:00:00Z: fixed, so fixtures do not depend on when they are recorded.
        public static let defaultStart: Int64 = 1_767_603_600_000

        /// Options for a fixture session.
        public init(session: UUID? = nil, subject: String = "fixture-subject", seed: UInt64 = 1,
                    startAt: Int64 = defaultStart, recording: String = "recording-1", misrecognitionRate: Double = 0.12) {
            self.session = session
            self.subject = subject
            self.seed = seed
            self.startAt = startAt
            self.recording = recording
            self.misrecognitionRate = misrecognitionRate
        }
    }

    /// The audio, in the session's format.
    public let audio: DecodedAudio
    /// The timed script.
    public let script: FixtureScript
    /// How the session is built.
    public let options: Options
    /// The store's keyed hash of a raw subject id.
    public let hashSubject: @Sendable (String) -> SubjectHash

    /// A recorder of `audio` and `script`; `hashSubject` turns the raw subject into its keyed hash.
    public init(audio: DecodedAudio, script: FixtureScript, options: Options = Options(),
                hashSubject: @escaping @Sendable (String) -> SubjectHash) {
        self.audio = audio
        self.script = script
        self.options = options
        self.hashSubject = hashSubject
    }

    /// The session id: the one given, or one derived from the audio, the script and every option that
    /// shapes the events (seed, subject, start, recording id, mishearing rate, labels). Event ids follow from the
    /// session id, so two recordings that differ in any of these never share ids (v1 left out all but
    /// the seed, and a second recording for another subject was taken for a resend).
    public var session: UUID {
        if let session = options.session { return session }
        var digest = SHA256()
        digest.update("sessionstore fixture session v2")
        withUnsafeBytes(of: options.seed.bigEndian) { digest.update($0) }
        digest.updateField(Array(options.subject.utf8))
        withUnsafeBytes(of: options.startAt.bigEndian) { digest.update($0) }
        digest.updateField(Array(options.recording.utf8))
        withUnsafeBytes(of: options.misrecognitionRate.bitPattern.bigEndian) { digest.update($0) }
        for (name, value) in options.labels.sorted(by: { $0.key < $1.key }) {
            digest.updateField(Array(name.utf8))
            digest.updateField(Array(value.utf8))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        digest.updateField(Array((try? encoder.encode(script)) ?? Data()))
        audio.samples.withUnsafeBytes { digest.updateField($0) }
        return UUID(version8From: digest.digest())
    }

    /// The audio's length, in milliseconds.
    public var audioMilliseconds: Int { audio.format.milliseconds(frames: audio.frames) }

    /// Every event of the session, in the order they happened.
    public func events() throws(FixtureError) -> [SessionEvent] {
        let duration = audioMilliseconds
        if let last = script.segments.last, last.endMilliseconds > duration + 100 {
            throw FixtureError(.mismatch, "the script's last segment ends at \(last.endMilliseconds) ms, after the audio (\(duration) ms)",
                               field: "segments[\(script.segments.count - 1)].end_ms")
        }
        var timeline = Timeline()
        let subject = hashSubject(options.subject)
        let locale = script.locale ?? "en"
        timeline.add(0, .sessionStarted(SessionStarted(subject: subject, locale: locale, device: "fixture", appVersion: nil,
                                                       source: .fixture, labels: options.labels)))
        for consent in ["audio_recording", "transcription"] {
            timeline.add(0, .consentGranted(ConsentChange(subject: subject, consentType: consent, method: options.consentMethod,
                                                          policyVersion: options.consentPolicyVersion)))
        }
        let format = audio.format
        timeline.add(0, .recordingStarted(RecordingStarted(recording: options.recording, sampleRate: UInt32(format.sampleRate),
                                                           channels: UInt32(format.channels))))
        let ranges = Chunking.frameRanges(frames: audio.frames, format: format)
        for (index, chunk) in try codedChunks(ranges).enumerated() {
            timeline.add(format.milliseconds(frames: ranges[index].upperBound), .recordingChunk(chunk))
        }
        for pause in script.pauses {
            timeline.add(pause.startMilliseconds, .sessionPaused(SessionPaused(reason: "fixture pause")))
            timeline.add(pause.endMilliseconds, .sessionResumed)
        }
        var random = SeededGenerator(seed: options.seed)
        let vocabulary = Array(Set(script.segments.flatMap { $0.text.split(whereSeparator: \.isWhitespace).map(String.init) })).sorted()
        for (index, segment) in script.segments.enumerated() {
            addTranscript(of: segment, id: "segment-\(index + 1)", vocabulary: vocabulary, random: &random, to: &timeline)
        }
        timeline.add(duration, .recordingStopped(RecordingStopped(recording: options.recording)))
        let playbackStart = max(duration, timeline.latest) + 1000
        timeline.add(playbackStart, .playbackStarted(PlaybackStarted(recording: options.recording, positionMilliseconds: 0, rate: 1)))
        timeline.add(playbackStart + duration, .playbackCompleted(PlaybackCompleted(recording: options.recording)))
        timeline.add(playbackStart + duration + 500, .sessionEnded(SessionEnded(reason: "fixture complete")))
        return timeline.events(session: session, startAt: options.startAt)
    }

    /// The audio's chunks, FLAC-coded on all cores (the raw PCM of an hour is never held twice).
    private func codedChunks(_ ranges: [Range<Int>]) throws(FixtureError) -> [RecordingChunk] {
        let audio = self.audio, recording = options.recording
        let results = parallelMap(count: ranges.count, workers: ProcessInfo.processInfo.activeProcessorCount,
                                  threshold: 64) { index in
            let pcm = Chunking.pcmBytes(audio.samples, frames: ranges[index], channels: audio.format.channels)
            return Result { () throws(AudioError) in
                try RecordingChunk(recording: recording, index: UInt64(index), pcm: pcm).codedLosslessly(as: audio.format)
            }
        }
        var chunks: [RecordingChunk] = []
        chunks.reserveCapacity(ranges.count)
        for result in results {
            switch result {
            case .success(let chunk): chunks.append(chunk)
            case .failure(let error): throw FixtureError(.mismatch, "audio chunk \(chunks.count): \(error.message)", underlying: error)
            }
        }
        return chunks
    }

    private func addTranscript(of segment: FixtureScript.Segment, id: String, vocabulary: [String],
                               random: inout SeededGenerator, to timeline: inout Timeline) {
        let words = segment.text.split(whereSeparator: \.isWhitespace).map(String.init)
        let span = segment.endMilliseconds - segment.startMilliseconds
        for count in 1...words.count {
            var shown = Array(words.prefix(count))
            if count < words.count, vocabulary.count > 1, random.chance(options.misrecognitionRate) {
                var wrong = vocabulary[random.integer(in: 0...(vocabulary.count - 1))]
                if wrong == shown[count - 1] { wrong = vocabulary[(vocabulary.firstIndex(of: wrong)! + 1) % vocabulary.count] }
                shown[count - 1] = wrong
            }
            let heard = segment.startMilliseconds + span * count / (words.count + 1)
            timeline.add(heard, .transcriptPartial(TranscriptPartial(
                segment: id, revision: UInt32(count - 1), text: shown.joined(separator: " "),
                startMilliseconds: UInt64(segment.startMilliseconds), endMilliseconds: UInt64(heard),
                stability: Double(count) / Double(words.count + 1))))
        }
        let latency = random.integer(in: 80...400)
        let confidence = Double(random.integer(in: 860...990)) / 1000
        let timed = words.enumerated().map { index, word in
            TranscriptWord(word: word, startMilliseconds: UInt64(segment.startMilliseconds + span * index / words.count),
                           endMilliseconds: UInt64(segment.startMilliseconds + span * (index + 1) / words.count), confidence: nil)
        }
        timeline.add(segment.endMilliseconds + latency, .transcriptCommitted(TranscriptCommitted(
            segment: id, text: segment.text, startMilliseconds: UInt64(segment.startMilliseconds),
            endMilliseconds: UInt64(segment.endMilliseconds), confidence: confidence, speaker: segment.speaker, words: timed)))
    }
}

/// Payloads at audio times, put in time order (ties in the order added) and given ids.
private struct Timeline {
    private var entries: [(milliseconds: Int, payload: SessionPayload)] = []

    var latest: Int { entries.map(\.milliseconds).max() ?? 0 }

    mutating func add(_ milliseconds: Int, _ payload: SessionPayload) {
        entries.append((milliseconds, payload))
    }

    func events(session: UUID, startAt: Int64) -> [SessionEvent] {
        let ordered = entries.enumerated().sorted { ($0.element.milliseconds, $0.offset) < ($1.element.milliseconds, $1.offset) }
        let sessionBytes = withUnsafeBytes(of: session.uuid) { Array($0) }
        return ordered.enumerated().map { number, entry in
            var digest = SHA256()
            digest.update("sessionstore fixture event v1")
            digest.update(sessionBytes)
            withUnsafeBytes(of: UInt64(number).bigEndian) { digest.update($0) }
            return SessionEvent(id: UUID(version8From: digest.digest()), session: session,
                                occurredAt: startAt + Int64(entry.element.milliseconds), payload: entry.element.payload)
        }
    }
}
