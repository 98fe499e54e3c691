import Foundation

/// Compares transcripts the way a person would: after normalising Unicode (NFKC), case (folded),
/// whitespace (collapsed) and, optionally, punctuation (stripped). Asserts key phrases in order, or a
/// word-level edit distance within a bound, and says what was missing or where the texts part.
public struct TranscriptMatcher: Sendable {
    /// Whether punctuation is ignored when comparing.
    public var stripsPunctuation: Bool

    /// A matcher that normalises case, whitespace and Unicode, and by default punctuation.
    public init(stripsPunctuation: Bool = true) {
        self.stripsPunctuation = stripsPunctuation
    }

    /// The outcome of a check: passed, or why not.
    public enum Outcome: Sendable, Equatable, CustomStringConvertible {
        case passed
        case failed(String)

        /// True when the check passed.
        public var passed: Bool { self == .passed }

        public var description: String {
            switch self {
            case .passed: "passed"
            case .failed(let reason): reason
            }
        }
    }

    /// NFKC, case-folded, punctuation stripped (when set), whitespace collapsed to single spaces.
    public func normalise(_ text: String) -> String {
        words(text).joined(separator: " ")
    }

    /// The normalised words of `text`.
    public func words(_ text: String) -> [String] {
        let folded = text.precomposedStringWithCompatibilityMapping.folding(options: [.caseInsensitive], locale: nil)
        var scalars = String.UnicodeScalarView()
        for scalar in folded.unicodeScalars {
            if stripsPunctuation, Self.isPunctuation(scalar) {
                scalars.append(" ")  // "well-known" → "well known"; "don't" → "don t" on both sides alike
            } else {
                scalars.append(scalar)
            }
        }
        return String(scalars).split(whereSeparator: { $0.isWhitespace }).map(String.init)
    }

    /// Each phrase appears in `transcript`, in this order, each after the one before (as whole words).
    public func phrasesInOrder(_ phrases: [String], in transcript: String) -> Outcome {
        let haystack = words(transcript)
        var from = 0
        for (index, phrase) in phrases.enumerated() {
            let needle = words(phrase)
            guard !needle.isEmpty else { continue }
            guard let found = Self.find(needle, in: haystack, from: from) else {
                let anywhere = Self.find(needle, in: haystack, from: 0)
                let place = anywhere.map { " (it appears at word \($0 + 1), before the previous phrase)" } ?? ""
                return .failed("phrase \(index + 1) \"\(normalise(phrase))\" is missing after word \(from)\(place)")
            }
            from = found + needle.count
        }
        return .passed
    }

    /// Word-level Levenshtein distance between the two texts after normalising.
    public func distance(_ expected: String, _ actual: String) -> Int {
        Self.levenshtein(words(expected), words(actual))
    }

    /// `actual` is within `bound` word edits of `expected`; otherwise says how far and where they part.
    public func matches(_ expected: String, _ actual: String, within bound: Int) -> Outcome {
        let want = words(expected), got = words(actual)
        let edits = Self.levenshtein(want, got)
        guard edits > bound else { return .passed }
        let common = zip(want, got).prefix { $0 == $1 }.count
        let expectedWord = common < want.count ? "\"\(want[common])\"" : "the end"
        let actualWord = common < got.count ? "\"\(got[common])\"" : "the end"
        return .failed("\(edits) word edits, more than \(bound); the texts part at word \(common + 1): expected \(expectedWord), got \(actualWord)")
    }

    private static func isPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
             .finalPunctuation, .otherPunctuation:
            true
        default:
            false
        }
    }

    private static func find(_ needle: [String], in haystack: [String], from start: Int) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        var index = start
        while index + needle.count <= haystack.count {
            if haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    private static func levenshtein(_ a: [String], _ b: [String]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
