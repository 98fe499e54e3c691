import Audio
import Foundation
import SessionStoreTesting
import Replay
import SessionModel
import Testing
import TestSupport

/// WordAlignment's word error rate, counts and alignment, and their agreement with PyPI's jiwer.
@Suite struct WordAlignmentTests {
    let matcher = TranscriptMatcher()

    func align(_ reference: String, _ hypothesis: String) -> WordAlignment {
        WordAlignment(reference: matcher.words(reference), hypothesis: matcher.words(hypothesis))
    }

    @Test func aPerfectTranscriptHasNoErrorsWhateverItsCaseAndPunctuation() {
        let alignment = align("Bed four is stable overnight.", "bed four, is STABLE overnight")
        #expect(alignment.wordErrorRate == 0)
        #expect(alignment.steps == [.init(kind: .equal, reference: 0..<5, hypothesis: 0..<5)])
    }

    @Test(arguments: 0..<6)
    func oneDroppedWordGivesExactlyOneOverN(_ dropped: Int) {
        let reference = "the cough kept me awake all".split(separator: " ").map(String.init)
        var hypothesis = reference
        hypothesis.remove(at: dropped)
        let alignment = WordAlignment(reference: reference, hypothesis: hypothesis)
        #expect(alignment.wordErrorRate == 1.0 / 6.0)
        #expect(alignment.deletions == 1 && alignment.substitutions == 0 && alignment.insertions == 0)
        #expect(alignment.hits == 5)
    }

    @Test func amongEqualAlignmentsItPicksJiwersOne() {
        // Each as jiwer 4.0 aligns it (jiwer.process_words): the same counts and chunks.
        let swapped = align("a b", "b a")
        #expect((swapped.substitutions, swapped.deletions, swapped.insertions) == (0, 1, 1))
        #expect(swapped.steps.map(\.kind) == [.insert, .equal, .delete])
        let grown = align("a", "b c")
        #expect(grown.steps == [.init(kind: .insert, reference: 0..<0, hypothesis: 0..<1),
                                .init(kind: .substitute, reference: 0..<1, hypothesis: 1..<2)])
        let shrunk = align("x y z", "y")
        #expect(shrunk.steps.map(\.kind) == [.delete, .equal, .delete])
        #expect(align("the cat sat", "the cat sat on the mat").insertions == 3)
    }

    @Test func emptyTextsAreCountedAsInsertionsOrDeletions() {
        #expect(align("", "").wordErrorRate == 0)
        #expect(align("one two", "").deletions == 2)
        #expect(align("", "one two").insertions == 2)
    }

    /// Seeded random word lists over a small vocabulary (many equally short alignments) and the bundled
    /// fixtures' scripts with words dropped, changed and added.
    static func cases() throws -> [(reference: [String], hypothesis: [String])] {
        var generator = SeededGenerator(seed: 28)
        var cases: [(reference: [String], hypothesis: [String])] = []
        for _ in 0..<3000 {
            let vocabulary = Array(["a", "b", "c", "d"].prefix(Int(generator.next() % 4) + 1))
            let words = { (count: Int) in (0..<count).map { _ in vocabulary[Int(generator.next() % UInt64(vocabulary.count))] } }
            cases.append((words(Int(generator.next() % 10) + 1), words(Int(generator.next() % 10) + 1)))
        }
        let matcher = TranscriptMatcher()
        for name in RepositoryFixtures.speechFixtures {
            let script = try FixtureScript.load(RepositoryFixtures.audio.appendingPathComponent("\(name).json").path)
            let reference = matcher.words(script.segments.map(\.text).joined(separator: " "))
            for _ in 0..<20 {
                var hypothesis = reference
                for _ in 0..<(Int(generator.next() % 4) + 1) where !hypothesis.isEmpty {
                    let at = Int(generator.next() % UInt64(hypothesis.count))
                    switch generator.next() % 3 {
                    case 0: hypothesis.remove(at: at)
                    case 1: hypothesis[at] = reference[Int(generator.next() % UInt64(reference.count))]
                    default: hypothesis.insert("uh", at: at)
                    }
                }
                cases.append((reference, hypothesis))
            }
        }
        return cases
    }

    @Test(.enabled(if: pythonTestEnabled("jiwer")))
    func countsRatesAndAlignmentsEqualJiwersOnEveryCase() throws {
        try requirePython("jiwer")
        let cases = try Self.cases().filter { !$0.reference.isEmpty && !$0.hypothesis.isEmpty }
        let input = Scratch.url("jiwer-cases-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: cases.map { ["reference": $0.reference, "hypothesis": $0.hypothesis] }).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let script = RepositoryFixtures.root.deletingLastPathComponent().appendingPathComponent("tools/replay/jiwer_alignment.py").path
        let run = try runPython([script, input.path])
        try #require(run.status == 0, "\(run.stderr)")
        let expected = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [[String: Any]])
        try #require(expected.count == cases.count)
        var disagreements = 0
        for (index, (reference, hypothesis)) in cases.enumerated() {
            let ours = WordAlignment(reference: reference, hypothesis: hypothesis)
            let theirs = expected[index]
            let steps = ours.steps.map { [$0.kind.rawValue, $0.reference.lowerBound, $0.reference.upperBound, $0.hypothesis.lowerBound,
                                          $0.hypothesis.upperBound] as [Any] }
            let same = theirs["substitutions"] as? Int == ours.substitutions && theirs["deletions"] as? Int == ours.deletions
                && theirs["insertions"] as? Int == ours.insertions && theirs["hits"] as? Int == ours.hits
                && abs((theirs["wer"] as? Double ?? -1) - ours.wordErrorRate) < 1e-12
                && (theirs["steps"] as? [[Any]]).map { "\($0)" } == "\(steps)"
            if !same {
                disagreements += 1
                if disagreements <= 3 { Issue.record("\(reference) / \(hypothesis): jiwer \(theirs), ours \(ours.steps)") }
            }
        }
        #expect(disagreements == 0, "\(disagreements) of \(cases.count) cases differ from jiwer")
    }
}
