/// Two transcripts' words aligned for a word error rate: which reference words the hypothesis kept,
/// substituted or deleted, and which words it inserted.
///
/// The alignment is a minimal word-level Levenshtein alignment; among the several minimal ones it picks
/// the one that PyPI's jiwer 4 (through RapidFuzz's `Levenshtein.editops`) picks, so the substitution,
/// deletion and insertion counts agree with jiwer's exactly, not only their sum: the common prefix and
/// suffix are matched first, then the path is traced back from the end preferring a deletion, then an
/// insertion, then the diagonal (Hyyrö, "A Note on Bit-Parallel Alignment Computation", 2004).
///
/// ```swift
/// let matcher = TranscriptMatcher()
/// let alignment = WordAlignment(reference: matcher.words("Bed four is stable."),
///                               hypothesis: matcher.words("bed for is stable"))
/// alignment.wordErrorRate   // 0.25: one substitution in four words
/// ```
public struct WordAlignment: Sendable, Equatable {
    /// One step of the alignment, over half-open ranges of word indices (as jiwer's alignment chunks).
    public struct Step: Sendable, Equatable {
        /// What the hypothesis did with the reference's words here.
        public enum Kind: String, Sendable {
            /// The words are the same.
            case equal
            /// Each reference word was replaced by the hypothesis word beside it.
            case substitute
            /// The reference words are missing from the hypothesis.
            case delete
            /// The hypothesis words are not in the reference.
            case insert
        }

        /// What happened to these words.
        public var kind: Kind
        /// The reference words concerned (empty for an insertion).
        public var reference: Range<Int>
        /// The hypothesis words concerned (empty for a deletion).
        public var hypothesis: Range<Int>

        /// A step of `kind` over these words.
        public init(kind: Kind, reference: Range<Int>, hypothesis: Range<Int>) {
            self.kind = kind
            self.reference = reference
            self.hypothesis = hypothesis
        }
    }

    /// The reference's words (the source session's transcript).
    public let reference: [String]
    /// The hypothesis's words (what the system under test produced).
    public let hypothesis: [String]
    /// The steps in word order; consecutive steps of one kind are merged.
    public let steps: [Step]

    /// Aligns `hypothesis` with `reference` (both already normalised, e.g. by ``TranscriptMatcher/words(_:)``).
    public init(reference: [String], hypothesis: [String]) {
        self.reference = reference
        self.hypothesis = hypothesis
        steps = Self.merged(Self.operations(reference, hypothesis))
    }

    /// Reference words the hypothesis replaced by another word.
    public var substitutions: Int { count(.substitute, \.reference) }
    /// Reference words missing from the hypothesis.
    public var deletions: Int { count(.delete, \.reference) }
    /// Hypothesis words with no reference word.
    public var insertions: Int { count(.insert, \.hypothesis) }
    /// Reference words the hypothesis has as they are.
    public var hits: Int { count(.equal, \.reference) }

    /// (S + D + I) / N over the reference's N words. jiwer refuses an empty reference; here it gives the
    /// number of inserted words (0 when both are empty).
    public var wordErrorRate: Double {
        reference.isEmpty ? Double(errors) : Double(errors) / Double(reference.count)
    }

    /// S + D + I.
    public var errors: Int { substitutions + deletions + insertions }

    private func count(_ kind: Step.Kind, _ side: KeyPath<Step, Range<Int>>) -> Int {
        steps.reduce(0) { $0 + ($1.kind == kind ? $1[keyPath: side].count : 0) }
    }

    /// One word-level operation: `reference` and `hypothesis` are the indices it consumes.
    private typealias Operation = (kind: Step.Kind, reference: Int, hypothesis: Int)

    private static func operations(_ a: [String], _ b: [String]) -> [Operation] {
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] { suffix += 1 }
        let n = a.count - prefix - suffix, m = b.count - prefix - suffix
        let deltas = VerticalDeltas(a[prefix..<(prefix + n)], b[prefix..<(prefix + m)])

        var backwards: [Operation] = []
        for offset in 0..<suffix { backwards.append((.equal, a.count - 1 - offset, b.count - 1 - offset)) }
        var col = n, row = m
        while row != 0, col != 0 {
            if deltas[col, row] == 1 {
                col -= 1
                backwards.append((.delete, prefix + col, prefix + row))
            } else {
                row -= 1
                if row != 0, deltas[col, row] == -1 {
                    backwards.append((.insert, prefix + col, prefix + row))
                } else {
                    col -= 1
                    let same = a[prefix + col] == b[prefix + row]
                    backwards.append((same ? .equal : .substitute, prefix + col, prefix + row))
                }
            }
        }
        while col != 0 { col -= 1; backwards.append((.delete, prefix + col, prefix + row)) }
        while row != 0 { row -= 1; backwards.append((.insert, prefix + col, prefix + row)) }
        for index in stride(from: prefix - 1, through: 0, by: -1) { backwards.append((.equal, index, index)) }
        return backwards.reversed()
    }

    private static func merged(_ operations: [Operation]) -> [Step] {
        var steps: [Step] = []
        for operation in operations {
            let reference = operation.kind == .insert ? operation.reference..<operation.reference
                : operation.reference..<(operation.reference + 1)
            let hypothesis = operation.kind == .delete ? operation.hypothesis..<operation.hypothesis
                : operation.hypothesis..<(operation.hypothesis + 1)
            if let last = steps.last, last.kind == operation.kind, last.reference.upperBound == reference.lowerBound,
               last.hypothesis.upperBound == hypothesis.lowerBound {
                steps[steps.count - 1].reference = last.reference.lowerBound..<reference.upperBound
                steps[steps.count - 1].hypothesis = last.hypothesis.lowerBound..<hypothesis.upperBound
            } else {
                steps.append(Step(kind: operation.kind, reference: reference, hypothesis: hypothesis))
            }
        }
        return steps
    }
}

/// `D[i][j] − D[i−1][j]` (−1, 0 or +1) of the word-level Levenshtein matrix for every i in 1…n and j in
/// 1…m, two bits a cell: an hour of speech (about 9,000 words a side) takes 20 MB, where the matrix of
/// distances would take 650 MB. Filled a column at a time from two columns of distances.
private struct VerticalDeltas {
    private var bits: [UInt64]
    private let wordsPerColumn: Int

    init(_ a: ArraySlice<String>, _ b: ArraySlice<String>) {
        let n = a.count, m = b.count
        wordsPerColumn = (2 * n + 63) / 64
        bits = [UInt64](repeating: 0, count: wordsPerColumn * (m + 1))
        guard n > 0, m > 0 else { return }  // the trace back reads no cell then
        let reference = Array(a), hypothesis = Array(b)
        var previous = Array(0...n), current = [Int](repeating: 0, count: n + 1)
        for j in 1...m {
            current[0] = j
            for i in 1...n {
                let diagonal = previous[i - 1] + (reference[i - 1] == hypothesis[j - 1] ? 0 : 1)
                current[i] = min(previous[i] + 1, current[i - 1] + 1, diagonal)
                set(i, j, current[i] - current[i - 1])
            }
            swap(&previous, &current)
        }
    }

    private mutating func set(_ i: Int, _ j: Int, _ delta: Int) {
        let bit = 2 * (i - 1), code = UInt64(delta + 1)  // 0, 1 or 2
        bits[j * wordsPerColumn + bit / 64] |= code << UInt64(bit % 64)
    }

    subscript(i: Int, j: Int) -> Int {
        let bit = 2 * (i - 1)
        return Int((bits[j * wordsPerColumn + bit / 64] >> UInt64(bit % 64)) & 3) - 1
    }
}
