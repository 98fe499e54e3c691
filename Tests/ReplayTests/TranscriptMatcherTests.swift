import Foundation
import SessionStoreTesting
import Replay
import Testing

@Suite struct TranscriptMatcherTests {
    let matcher = TranscriptMatcher()

    @Test func normalisingFoldsCaseUnicodeWhitespaceAndPunctuation() {
        #expect(matcher.normalise("  Hello,\n\tWORLD!  ") == "hello world")
        #expect(matcher.normalise("ﬁne Ｆｕｌｌ width") == "fine full width")  // NFKC: ligature and full-width
        #expect(matcher.normalise("Straße") == matcher.normalise("STRASSE") || matcher.normalise("Straße") == "straße")
        #expect(matcher.normalise("e\u{301}té") == matcher.normalise("\u{E9}T\u{C9}"))  // composed or not
        #expect(matcher.normalise("שלום, עולם 👍") == "שלום עולם 👍")  // emoji and right-to-left kept
        #expect(TranscriptMatcher(stripsPunctuation: false).normalise("Hi, there.") == "hi, there.")
    }

    @Test func keyPhrasesMustAppearInOrder() {
        let transcript = "Patient reports mild pain in the left knee. Blood pressure is normal. Review again in two weeks."
        #expect(matcher.phrasesInOrder(["mild pain", "BLOOD PRESSURE", "two weeks"], in: transcript).passed)
        let reversed = matcher.phrasesInOrder(["two weeks", "blood pressure"], in: transcript)
        #expect(reversed == .failed("phrase 2 \"blood pressure\" is missing after word 17 (it appears at word 9, before the previous phrase)"))
        let missing = matcher.phrasesInOrder(["left knee", "right elbow"], in: transcript)
        #expect(missing == .failed("phrase 2 \"right elbow\" is missing after word 8"))
        #expect(!matcher.phrasesInOrder(["pain in the right"], in: transcript).passed)  // whole words, in sequence
    }

    @Test func editDistanceIsCountedInWordsAndReportsWhereTheTextsPart() {
        #expect(matcher.distance("the blue one", "The blue one.") == 0)
        #expect(matcher.distance("the blue one", "the red one") == 1)
        #expect(matcher.distance("a b c d", "a c d e") == 2)
        #expect(matcher.matches("see you tomorrow", "see you to morrow", within: 2).passed)
        #expect(matcher.matches("send it to the pharmacy", "send it to pharmacy now", within: 1)
                == .failed("2 word edits, more than 1; the texts part at word 4: expected \"the\", got \"pharmacy\""))
        #expect(matcher.matches("one two", "one", within: 0) == .failed("1 word edits, more than 0; the texts part at word 2: expected \"two\", got the end"))
    }
}
