import Audio
import EventLog
import Foundation
import HexCoding
import Ingest
import SessionModel
import TimeCoding

/// Makes one long fixture session from stored ones, to stress what grows with a session (an app's
/// scrollback, a recogniser's memory): their segments one after another, each with the pause before
/// it (the source's own audio, or a set silence), up to a target length. The truth transcript keeps
/// every segment's text and speaker at its shifted time; the session belongs to the sources' one
/// subject (erasing them erases it) with their consent. Deterministic: the same sources, options and
/// seed give the same session, id included. Definitions: docs/REPLAY.md ("Long sessions").
public enum LongSession {
    /// How the long session is made.
    public struct Options: Sendable {
        /// Its length at most, in milliseconds.
        public var targetMilliseconds: Int
        /// The silence before every segment, in milliseconds; nil keeps each source's own pause.
        public var pauseMilliseconds: Int?
        /// Seeds the order of the sources in each round and the session's partials and commit times.
        public var seed: UInt64
        /// More labels for the session.
        public var labels: [String: String]

        public init(targetMilliseconds: Int, pauseMilliseconds: Int? = nil, seed: UInt64 = 1, labels: [String: String] = [:]) {
            self.targetMilliseconds = targetMilliseconds
            self.pauseMilliseconds = pauseMilliseconds
            self.seed = seed
            self.labels = labels
        }

        /// The `condition` label: `long:` the target, then `:pause:MS` when the pauses are set.
        public var condition: String {
            "long:" + DurationText.text(Int64(targetMilliseconds)) + (pauseMilliseconds.map { ":pause:\($0)" } ?? "")
        }
    }

    /// A piece of a source: the audio from `audioStart` to the segment's end, the segment at its end.
    struct Piece {
        var source: Int
        var segment: FixtureScript.Segment
        var audioStartMilliseconds: Int
    }

    /// The longest target: a day of audio.
    public static let maximumMilliseconds = 86_400_000

    /// Makes the long session of `sessions` (the first sets its format, start and `derived_from`) and
    /// stores it in `log`.
    /// - Throws: ``ConditionError`` before anything is stored: a source that cannot be derived from (no
    ///   consent, audio or transcript), sources of several subjects or channel counts, a target out of range
    ///   or shorter than any segment, labels past the rules; the store's and ingest's errors.
    public static func derive(from sessions: [UUID], in log: EventLog, options: Options) async throws -> ConditionSuite.Derived {
        guard (1...maximumMilliseconds).contains(options.targetMilliseconds) else {
            throw ConditionError(.invalidCondition, "the long session's length \(DurationText.text(Int64(options.targetMilliseconds))) "
                                 + "is out of range; give 1 ms to 24 h")
        }
        if let pause = options.pauseMilliseconds, !(0...600_000).contains(pause) {
            throw ConditionError(.invalidCondition, "the pause of \(pause) ms is out of range; give 0 to 600000 ms")
        }
        guard let firstSession = sessions.first else { throw ConditionError(.unusableSource, "no source session to make a long session of") }
        if let name = options.labels.keys.sorted().first(where: ConditionSuite.reservedLabels.contains) {
            throw ConditionError(.invalidCondition, "label \(name) is set by derive itself; choose another name for yours")
        }
        let sources = try sessions.map { try SuiteSource.load($0, from: log) }
        let first = sources[0]
        for source in sources.dropFirst() {
            guard source.subject == first.subject else {
                throw ConditionError(.unusableSource, "sessions \(Hex.uuid(firstSession)) and \(Hex.uuid(source.session)) belong to different "
                                     + "subjects; a long session is one subject's, so that erasing them erases it: give one subject's sessions")
            }
            guard source.audio.format.channels == first.audio.format.channels else {
                throw ConditionError(.unusableSource, "session \(Hex.uuid(source.session)) has \(source.audio.format.channels) channels and "
                                     + "\(Hex.uuid(firstSession)) has \(first.audio.format.channels); give sessions with as many channels")
            }
        }
        let format = first.audio.format
        let audios = sources.map { $0.audio.format.sampleRate == format.sampleRate ? $0.audio : $0.audio.resampled(to: format.sampleRate) }
        let pieces = try plan(sources.map(\.script), options: options)
        let (audio, script) = assemble(pieces, audios: audios, scripts: sources.map(\.script), format: format, options: options)

        var labels = first.labels.merging(options.labels) { $1 }
        labels["condition"] = options.condition
        labels["derived_from"] = Hex.uuid(firstSession)
        let speakers = Set(sources.flatMap(\.speakers)).sorted()
        labels["speaker"] = speakers.isEmpty ? nil : speakers.joined(separator: "+")
        labels["suite"] = nil
        if let problem = SessionLabels.problem(labels: labels) {
            throw ConditionError(.invalidCondition, "the long session of \(Hex.uuid(firstSession)): \(problem)")
        }
        return try await ConditionSuite.store(audio, script, derivedFrom: first, condition: options.condition, labels: labels,
                                              seed: options.seed, in: log, named: "the long session of \(Hex.uuid(firstSession))")
    }

    /// The pieces in order: rounds over the sources, each round in a seeded order, each source's segments
    /// in their own order, until the next piece would pass the target.
    static func plan(_ scripts: [FixtureScript], options: Options) throws(ConditionError) -> [Piece] {
        let perSource = scripts.enumerated().map { index, script in pieces(of: script, source: index, pause: options.pauseMilliseconds) }
        var random = SeededGenerator(seed: options.seed)
        var plan: [Piece] = []
        var length = 0
        while true {
            var order = Array(perSource.indices)
            for index in order.indices.reversed() where index > 0 { order.swapAt(index, random.integer(in: 0...index)) }
            for source in order {
                for piece in perSource[source] {
                    let added = piece.segment.endMilliseconds - piece.audioStartMilliseconds + (options.pauseMilliseconds ?? 0)
                    guard length + added <= options.targetMilliseconds else {
                        guard !plan.isEmpty else {
                            throw ConditionError(.invalidCondition, "the long session's length \(DurationText.text(Int64(options.targetMilliseconds))) "
                                                 + "is shorter than its first segment with its pause (\(added) ms); give a longer one")
                        }
                        return plan
                    }
                    plan.append(piece)
                    length += added
                }
            }
        }
    }

    /// A source's segments as pieces: with their own pauses, each starts where the one before it ended
    /// (the first at the recording's start); with a set pause, each is its segment alone.
    static func pieces(of script: FixtureScript, source: Int, pause: Int?) -> [Piece] {
        var previousEnd = 0
        return script.segments.map { segment in
            defer { previousEnd = segment.endMilliseconds }
            let start = pause == nil ? min(previousEnd, segment.startMilliseconds) : segment.startMilliseconds
            return Piece(source: source, segment: segment, audioStartMilliseconds: start)
        }
    }

    /// The pieces' audio one after another (a set pause as digital silence before each) and the script
    /// with every segment, and every session pause inside a piece, at its shifted time.
    static func assemble(_ pieces: [Piece], audios: [DecodedAudio], scripts: [FixtureScript], format: AudioFormat,
                         options: Options) -> (DecodedAudio, FixtureScript) {
        var samples: [Int16] = []
        var segments: [FixtureScript.Segment] = []
        var pauses: [FixtureScript.Span] = []
        let channels = format.channels
        for piece in pieces {
            if let pause = options.pauseMilliseconds { samples += repeatElement(0, count: format.frames(milliseconds: pause) * channels) }
            let offset = format.milliseconds(frames: samples.count / channels)
            let source = audios[piece.source].samples
            let from = min(source.count, format.frames(milliseconds: piece.audioStartMilliseconds) * channels)
            let to = min(source.count, format.frames(milliseconds: piece.segment.endMilliseconds) * channels)
            samples += source[from..<max(from, to)]
            let shift = offset - piece.audioStartMilliseconds
            var segment = piece.segment
            segment.startMilliseconds += shift
            segment.endMilliseconds += shift
            segments.append(segment)
            pauses += scripts[piece.source].pauses
                .filter { $0.startMilliseconds >= piece.audioStartMilliseconds && $0.endMilliseconds <= piece.segment.endMilliseconds }
                .map { FixtureScript.Span(startMilliseconds: $0.startMilliseconds + shift, endMilliseconds: $0.endMilliseconds + shift) }
        }
        let script = FixtureScript(segments: segments, pauses: pauses, durationMilliseconds: format.milliseconds(frames: samples.count / channels),
                                   locale: scripts.first?.locale).withSilencesBetweenSegments()
        return (DecodedAudio(samples: samples, format: format), script)
    }
}
