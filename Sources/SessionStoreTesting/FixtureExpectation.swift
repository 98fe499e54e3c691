import Foundation

/// What a fixture pack (`sessionstore pack`, docs/APP-TESTING.md) says one session's recording should transcribe to:
/// the file `<session>.expectation.json` beside `<session>.wav`, with its JSON Schema in
/// docs/fixture-expectation.schema.json. An app's UI test reads it and judges its own transcript with ``check(_:)``,
/// the way the store's `compare` judges a recognizer.
public struct FixtureExpectation: Codable, Sendable, Equatable {
    public static let schemaVersion = 1

    /// The recording's file and format.
    public struct Recording: Codable, Sendable, Equatable {
        /// The WAV file's name in the pack (16-bit PCM).
        public var file: String
        /// The recording's id in the session.
        public var id: String
        public var sampleRate: Int
        public var channels: Int
        public var frames: Int
        public var durationMilliseconds: Int
        /// The frames of each chunk as the store recorded them (100 ms), the last perhaps fewer: ``PacedAudioSource``.
        public var chunkFrames: Int

        enum CodingKeys: String, CodingKey {
            case file, id, channels, frames
            case sampleRate = "sample_rate"
            case durationMilliseconds = "duration_ms"
            case chunkFrames = "chunk_frames"
        }

        public init(file: String, id: String, sampleRate: Int, channels: Int, frames: Int, durationMilliseconds: Int, chunkFrames: Int) {
            self.file = file
            self.id = id
            self.sampleRate = sampleRate
            self.channels = channels
            self.frames = frames
            self.durationMilliseconds = durationMilliseconds
            self.chunkFrames = chunkFrames
        }
    }

    /// One committed segment (its correction, when it has one), with its times in the recording.
    public struct Segment: Codable, Sendable, Equatable {
        public var id: String
        public var text: String
        public var startMilliseconds: Int
        public var endMilliseconds: Int
        public var speaker: String?

        enum CodingKeys: String, CodingKey {
            case id, text, speaker
            case startMilliseconds = "start_ms"
            case endMilliseconds = "end_ms"
        }

        public init(id: String, text: String, startMilliseconds: Int, endMilliseconds: Int, speaker: String? = nil) {
            self.id = id
            self.text = text
            self.startMilliseconds = startMilliseconds
            self.endMilliseconds = endMilliseconds
            self.speaker = speaker
        }
    }

    /// How far a transcript may be from ``transcript`` and still pass.
    public struct Tolerance: Codable, Sendable, Equatable {
        /// Punctuation is ignored (Unicode NFKC, case folding and collapsed whitespace always apply).
        public var stripPunctuation: Bool
        /// Word-level edits (insertions, deletions, substitutions) allowed after normalising.
        public var maxWordEdits: Int

        enum CodingKeys: String, CodingKey {
            case stripPunctuation = "strip_punctuation"
            case maxWordEdits = "max_word_edits"
        }

        public init(stripPunctuation: Bool = true, maxWordEdits: Int) {
            self.stripPunctuation = stripPunctuation
            self.maxWordEdits = maxWordEdits
        }
    }

    public var schemaVersion: Int
    public var session: UUID
    public var recording: Recording
    /// The committed segments' texts in order, joined by single spaces.
    public var transcript: String
    public var segments: [Segment]
    /// Phrases that must appear in this order (``keyPhrases(of:)`` chose them, or the person who made the pack).
    public var keyPhrases: [String]
    public var tolerance: Tolerance
    /// The session's labels (condition, speaker, suite, …).
    public var labels: [String: String]

    enum CodingKeys: String, CodingKey {
        case session, recording, transcript, segments, tolerance, labels
        case schemaVersion = "schema_version"
        case keyPhrases = "key_phrases"
    }

    public init(session: UUID, recording: Recording, segments: [Segment], keyPhrases: [String]? = nil, maxWordEdits: Int? = nil,
                labels: [String: String] = [:]) {
        schemaVersion = Self.schemaVersion
        self.session = session
        self.recording = recording
        self.segments = segments
        transcript = segments.map(\.text).joined(separator: " ")
        self.keyPhrases = keyPhrases ?? Self.keyPhrases(of: segments)
        let words = TranscriptMatcher().words(transcript).count
        tolerance = Tolerance(maxWordEdits: maxWordEdits ?? Self.defaultMaxWordEdits(words: words))
        self.labels = labels
    }

    /// Ids are written in lower case, as everywhere in the store.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(schemaVersion, forKey: .schemaVersion)
        try container.encode(session.uuidString.lowercased(), forKey: .session)
        try container.encode(recording, forKey: .recording)
        try container.encode(transcript, forKey: .transcript)
        try container.encode(segments, forKey: .segments)
        try container.encode(keyPhrases, forKey: .keyPhrases)
        try container.encode(tolerance, forKey: .tolerance)
        try container.encode(labels, forKey: .labels)
    }

    /// Reads an expectation file; throws for one that is not this schema's (its version named).
    public static func load(from url: URL) throws -> FixtureExpectation {
        let expectation = try JSONDecoder().decode(FixtureExpectation.self, from: Data(contentsOf: url))
        guard expectation.schemaVersion == schemaVersion else {
            throw DecodingError.dataCorrupted(.init(codingPath: [CodingKeys.schemaVersion],
                                                    debugDescription: "\(url.path) is schema version \(expectation.schemaVersion); this library reads \(schemaVersion)"))
        }
        return expectation
    }

    /// The file's bytes: keys sorted, so that the same session gives the same bytes.
    public func encoded() throws -> Data {
        try PackJSON.encoded(self)
    }

    /// Judges `transcript` as the store does: every key phrase in order, and within the word edits allowed.
    public func check(_ transcript: String) -> TranscriptMatcher.Outcome {
        let matcher = TranscriptMatcher(stripsPunctuation: tolerance.stripPunctuation)
        let phrases = matcher.phrasesInOrder(keyPhrases, in: transcript)
        guard phrases.passed else { return phrases }
        return matcher.matches(self.transcript, transcript, within: tolerance.maxWordEdits)
    }

    /// The rule a pack chooses key phrases by: from each committed segment in order, its first three words after
    /// normalising (``TranscriptMatcher/words(_:)``), when it has three or more; a shorter segment gives none.
    public static func keyPhrases(of segments: [Segment]) -> [String] {
        let matcher = TranscriptMatcher()
        return segments.compactMap { segment in
            let words = matcher.words(segment.text)
            return words.count >= 3 ? words.prefix(3).joined(separator: " ") : nil
        }
    }

    /// The word edits a pack allows by default: a tenth of the transcript's words, rounded up, and at least one.
    public static func defaultMaxWordEdits(words: Int) -> Int {
        max(1, (words + 9) / 10)
    }
}

/// How a pack's JSON files are written: keys sorted, indented, slashes as they are, a line end at the end.
enum PackJSON {
    static func encoded(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        var data = try encoder.encode(value)
        data.append(UInt8(ascii: "\n"))
        return data
    }
}
