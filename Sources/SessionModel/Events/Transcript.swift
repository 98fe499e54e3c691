/// A recogniser's current guess for a segment; superseded by later revisions and by the commit.
public struct TranscriptPartial: Hashable, Sendable {
    /// The segment being recognised.
    public var segment: String = ""
    /// The guess's revision within its segment, from 0; a later revision supersedes an earlier one.
    public var revision: UInt32 = 0
    /// The current guess.
    public var text: String = ""
    /// Where the segment starts in the recording, in milliseconds.
    public var startMilliseconds: UInt64 = 0
    /// Where the guess ends in the recording, in milliseconds.
    public var endMilliseconds: UInt64 = 0
    /// How settled the guess is, 0–1, when the recogniser says.
    public var stability: Double?

    init() {}

    /// A partial guess of `segment`.
    public init(segment: String, revision: UInt32, text: String, startMilliseconds: UInt64, endMilliseconds: UInt64,
                stability: Double? = nil) {
        self.segment = segment
        self.revision = revision
        self.text = text
        self.startMilliseconds = startMilliseconds
        self.endMilliseconds = endMilliseconds
        self.stability = stability
    }
}

/// One recognised word with its times.
public struct TranscriptWord: Hashable, Sendable, WirePayload {
    /// The word as recognised.
    public var word: String = ""
    /// Where the word starts in the recording, in milliseconds.
    public var startMilliseconds: UInt64 = 0
    /// Where the word ends in the recording, in milliseconds.
    public var endMilliseconds: UInt64 = 0
    /// The recogniser's confidence in the word, 0–1, when given.
    public var confidence: Double?

    init() {}

    /// A word with its times.
    public init(word: String, startMilliseconds: UInt64, endMilliseconds: UInt64, confidence: Double? = nil) {
        self.word = word
        self.startMilliseconds = startMilliseconds
        self.endMilliseconds = endMilliseconds
        self.confidence = confidence
    }

    // A nested message: its fields are numbered from 1.
    func write(to writer: inout WireWriter) {
        writer.string(1, word)
        writer.uint(2, startMilliseconds)
        writer.uint(3, endMilliseconds)
        writer.double(4, confidence)
    }

    /// Writes the word as nested message `field` (its own fields 1–4), as payloads and views carry it.
    package func write(asMessage field: Int, to writer: inout WireWriter) {
        writer.message(field) { write(to: &$0) }
    }

    /// Reads a word from the bytes of its nested message.
    package init(message: UnsafeRawBufferPointer) throws {
        self = try WireCodec.decodeMessage(TranscriptWord.self, from: message)
    }

    mutating func read(_ field: Int, _ type: UInt8, from reader: inout WireReader) throws -> Bool {
        switch field {
        case 1: word = try reader.text(type, field)
        case 2: startMilliseconds = try reader.uint64(type, field)
        case 3: endMilliseconds = try reader.uint64(type, field)
        case 4: confidence = try reader.real(type, field)
        default: return false
        }
        return true
    }
}

/// A segment's final text. A committed segment never changes; a correction is a later event.
public struct TranscriptCommitted: Hashable, Sendable {
    /// The segment committed; it never changes after commit (a correction is a new event).
    public var segment: String = ""
    /// The committed text.
    public var text: String = ""
    /// Where the segment starts in the recording, in milliseconds.
    public var startMilliseconds: UInt64 = 0
    /// Where the segment ends in the recording, in milliseconds.
    public var endMilliseconds: UInt64 = 0
    /// The recogniser's confidence, 0–1, when given.
    public var confidence: Double?
    /// Who spoke, when the recogniser tells speakers apart.
    public var speaker: String?
    /// The words with their times, when the recogniser gives them.
    public var words: [TranscriptWord] = []

    init() {}

    /// The commit of `segment` with its final `text`.
    public init(segment: String, text: String, startMilliseconds: UInt64, endMilliseconds: UInt64,
                confidence: Double? = nil, speaker: String? = nil, words: [TranscriptWord] = []) {
        self.segment = segment
        self.text = text
        self.startMilliseconds = startMilliseconds
        self.endMilliseconds = endMilliseconds
        self.confidence = confidence
        self.speaker = speaker
        self.words = words
    }
}

/// A correction of a committed segment's text, recorded as a new event.
public struct TranscriptCorrected: Hashable, Sendable {
    /// The committed segment corrected.
    public var segment: String = ""
    /// The corrected text; it replaces the committed text in views, which keep both.
    public var text: String = ""
    /// Why, when given.
    public var reason: String?

    init() {}

    /// A correction of `segment` to `text`.
    public init(segment: String, text: String, reason: String? = nil) {
        self.segment = segment
        self.text = text
        self.reason = reason
    }
}
