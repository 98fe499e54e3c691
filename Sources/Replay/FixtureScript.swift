import Foundation

/// The transcript truth of a fixture recording (tools/fixtures/make.py writes them): what is said,
/// by whom and when, the silences between, and the spans in which the session is paused.
public struct FixtureScript: Codable, Hashable, Sendable {
    public struct Segment: Codable, Hashable, Sendable {
        /// The transcript truth (may hold characters no voice says: emoji, other scripts).
        public var text: String
        public var speaker: String?
        public var startMilliseconds: Int
        public var endMilliseconds: Int

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

    public struct Span: Codable, Hashable, Sendable {
        public var startMilliseconds: Int
        public var endMilliseconds: Int

        public init(startMilliseconds: Int, endMilliseconds: Int) {
            self.startMilliseconds = startMilliseconds
            self.endMilliseconds = endMilliseconds
        }

        enum CodingKeys: String, CodingKey {
            case startMilliseconds = "start_ms"
            case endMilliseconds = "end_ms"
        }
    }

    public var segments: [Segment]
    public var silences: [Span]
    /// Spans in which the session is paused (the recording goes on, silent).
    public var pauses: [Span]
    public var durationMilliseconds: Int?
    public var locale: String?

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
            throw FixtureError("\(path) cannot be read: \(error.localizedDescription)")
        }
        let script: FixtureScript
        do { script = try JSONDecoder().decode(FixtureScript.self, from: data) } catch {
            throw FixtureError("\(path) is not a fixture script: \(Self.describe(error))")
        }
        try script.check(source: path)
        return script
    }

    /// Segments need text and times in order; pauses must not overlap.
    public func check(source: String) throws(FixtureError) {
        guard !segments.isEmpty else { throw FixtureError("\(source): the script has no segments") }
        for (index, segment) in segments.enumerated() {
            let place = "\(source): segments[\(index)]"
            if segment.text.split(whereSeparator: \.isWhitespace).isEmpty { throw FixtureError("\(place) has no text") }
            if segment.startMilliseconds < 0 { throw FixtureError("\(place).start_ms is negative") }
            if segment.endMilliseconds <= segment.startMilliseconds {
                throw FixtureError("\(place).end_ms (\(segment.endMilliseconds)) is not after start_ms (\(segment.startMilliseconds))")
            }
            if index > 0, segment.startMilliseconds < segments[index - 1].startMilliseconds {
                throw FixtureError("\(place) starts before the segment it follows")
            }
        }
        for (index, pause) in pauses.enumerated() {
            if pause.startMilliseconds < 0 || pause.endMilliseconds <= pause.startMilliseconds {
                throw FixtureError("\(source): pauses[\(index)] does not end after it starts")
            }
            if index > 0, pause.startMilliseconds < pauses[index - 1].endMilliseconds {
                throw FixtureError("\(source): pauses[\(index)] overlaps the pause before it")
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

/// Why a fixture could not be built or replayed.
public struct FixtureError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
