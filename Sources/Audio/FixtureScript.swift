import Failures
import Foundation

/// The transcript truth of a fixture recording (tools/fixtures/make.py writes them): what is said,
/// by whom and when, the silences between, and the spans in which the session is paused.
public struct FixtureScript: Codable, Hashable, Sendable {
    /// What is said, by whom, and when in the audio.
    public struct Segment: Codable, Hashable, Sendable {
        /// The transcript truth (may hold characters no voice says: emoji, other scripts).
        public var text: String
        /// Who says it, when the script names speakers.
        public var speaker: String?
        /// Where the segment starts in the audio, in milliseconds.
        public var startMilliseconds: Int
        /// Where it ends, in milliseconds.
        public var endMilliseconds: Int

        /// A segment of `text` from `startMilliseconds` to `endMilliseconds`.
        public init(text: String, speaker: String? = nil, startMilliseconds: Int, endMilliseconds: Int) {
            self.text = text
            self.speaker = speaker
            self.startMilliseconds = startMilliseconds
            self.endMilliseconds = endMilliseconds
        }

        enum CodingKeys: String, CodingKey {
            case text, speaker
            case startMilliseconds = "start_ms"
            case endMilliseconds = "end_ms"
        }
    }

    /// A stretch of the audio.
    public struct Span: Codable, Hashable, Sendable {
        /// Where it starts, in milliseconds.
        public var startMilliseconds: Int
        /// Where it ends, in milliseconds.
        public var endMilliseconds: Int

        /// The stretch from `startMilliseconds` to `endMilliseconds`.
        public init(startMilliseconds: Int, endMilliseconds: Int) {
            self.startMilliseconds = startMilliseconds
            self.endMilliseconds = endMilliseconds
        }

        enum CodingKeys: String, CodingKey {
            case startMilliseconds = "start_ms"
            case endMilliseconds = "end_ms"
        }
    }

    /// What is said, in time order.
    public var segments: [Segment]
    /// Stretches of silence in the audio.
    public var silences: [Span]
    /// Spans in which the session is paused (the recording goes on, silent).
    public var pauses: [Span]
    /// The audio's length, when the script states it.
    public var durationMilliseconds: Int?
    /// The session's locale; `en` when absent.
    public var locale: String?

    /// A script built in code.
    public init(segments: [Segment], silences: [Span] = [], pauses: [Span] = [], durationMilliseconds: Int? = nil,
                locale: String? = nil) {
        self.segments = segments
        self.silences = silences
        self.pauses = pauses
        self.durationMilliseconds = durationMilliseconds
        self.locale = locale
    }

    enum CodingKeys: String, CodingKey {
        case segments, silences, pauses, locale
        case durationMilliseconds = "duration_ms"
    }

    /// Reads a script's JSON (`segments`, `pauses`, `silences`, `duration_ms`, `locale`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        segments = try container.decode([Segment].self, forKey: .segments)
        silences = try container.decodeIfPresent([Span].self, forKey: .silences) ?? []
        pauses = try container.decodeIfPresent([Span].self, forKey: .pauses) ?? []
        durationMilliseconds = try container.decodeIfPresent(Int.self, forKey: .durationMilliseconds)
        locale = try container.decodeIfPresent(String.self, forKey: .locale)
    }

    /// Reads and checks a script file; the error names the file and what is wrong where.
    public static func load(_ path: String) throws(FixtureError) -> FixtureScript {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw FixtureError(.unreadable, "\(path) cannot be read: \(fileErrorReason(error))", path: path, underlying: error)
        }
        let script: FixtureScript
        do { script = try JSONDecoder().decode(FixtureScript.self, from: data) } catch {
            throw FixtureError(.invalidScript, "\(path) is not a fixture script: \(Self.describe(error))", path: path, underlying: error)
        }
        try script.check(source: path)
        return script
    }

    /// Segments need text and times in order; pauses must not overlap.
    public func check(source: String) throws(FixtureError) {
        func invalid(_ field: String, _ problem: String) -> FixtureError {
            FixtureError(.invalidScript, "\(source): \(field) \(problem)", path: source, field: field)
        }
        guard !segments.isEmpty else { throw invalid("segments", "is empty: the script has no segments") }
        for (index, segment) in segments.enumerated() {
            let place = "segments[\(index)]"
            if segment.text.split(whereSeparator: \.isWhitespace).isEmpty { throw invalid("\(place).text", "is empty") }
            if segment.startMilliseconds < 0 { throw invalid("\(place).start_ms", "is negative") }
            if segment.endMilliseconds <= segment.startMilliseconds {
                throw invalid("\(place).end_ms", "(\(segment.endMilliseconds)) is not after start_ms (\(segment.startMilliseconds))")
            }
            if index > 0, segment.startMilliseconds < segments[index - 1].startMilliseconds {
                throw invalid("\(place).start_ms", "is before the start of the segment it follows")
            }
        }
        for (index, pause) in pauses.enumerated() {
            if pause.startMilliseconds < 0 || pause.endMilliseconds <= pause.startMilliseconds {
                throw invalid("pauses[\(index)]", "does not end after it starts")
            }
            if index > 0, pause.startMilliseconds < pauses[index - 1].endMilliseconds {
                throw invalid("pauses[\(index)]", "overlaps the pause before it")
            }
        }
    }

    private static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?:
            return "\(path(context.codingPath + [key])) is missing"
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
            return "\(path(context.codingPath)) has the wrong type (\(context.debugDescription))"
        case .dataCorrupted(let context)?:
            return context.codingPath.isEmpty ? "not valid JSON" : "\(path(context.codingPath)): \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingCharacters(in: CharacterSet(charactersIn: "."))
    }
}

/// Why a fixture could not be built, with the file and field it concerns.
///
/// Match on ``code``; `path` names the script and `field` the place in it (`segments[2].end_ms`).
public struct FixtureError: CodedError, Sendable {
    /// The kind of failure. New codes may be added; match the ones you handle.
    public typealias Code = ErrorCode<FixtureError>

    /// What kind of failure this is; match on it.
    public var code: Code
    /// One sentence naming what and where.
    public var message: String
    /// The error that caused this one, when there was one.
    public var underlying: (any Error)?
    /// The script concerned, when known.
    public var path: String?
    /// The place in the script (`segments[2].end_ms`), when known.
    public var field: String?

    /// An error of kind `code`, with its sentence and place.
    public init(_ code: Code, _ message: String, path: String? = nil, field: String? = nil, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
        self.path = path
        self.field = field
    }
}

extension ErrorCode where Domain == FixtureError {
    /// The script file is missing or unreadable.
    public static let unreadable = Self("unreadable", .invalidData)
    /// The script is not valid: a field is missing, of the wrong type, or out of order.
    public static let invalidScript = Self("invalid script", .invalidData)
    /// The script and the audio do not fit together, or the audio cannot be coded.
    public static let mismatch = Self("mismatch", .invalidData)
}
