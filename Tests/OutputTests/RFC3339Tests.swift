@testable import Output
import Testing
import TimeCoding

@Suite struct RFC3339Tests {
    @Test(arguments: [
        ("1970-01-01T00:00:00Z", Int64(0)),
        ("2026-11-21T10:00:00.250Z", Int64(1_795_255_200_250)),
        ("2026-11-21T10:00:00.25Z", Int64(1_795_255_200_250)),
        ("2026-11-21T10:00:00.123456789Z", Int64(1_795_255_200_123)),
        ("2026-11-21t10:00:00+00:00", Int64(1_795_255_200_000)),
        ("2024-02-29T23:59:59.999Z", Int64(1_709_251_199_999)),
        ("1969-12-31T23:59:59.000Z", Int64(-1000)),
    ])
    func validTimesParseToMilliseconds(_ text: String, _ expected: Int64) {
        #expect(RFC3339.milliseconds(text) == expected)
    }

    @Test(arguments: ["2026-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-11-21T24:00:00Z", "2026-11-21T10:00:00",
                      "2026-11-21T10:00:00+01:00", "2026-11-21 10:00:00Z", "2026-11-21T10:00:00.Z", "yesterday", ""])
    func invalidOrNonUTCTimesAreRefused(_ text: String) {
        #expect(RFC3339.milliseconds(text) == nil)
    }

    @Test(arguments: [
        ("2026-11-21T11:00:00.250+01:00", Int64(1_795_255_200_250)),
        ("2026-11-21T04:29:00-05:31", Int64(1_795_255_200_000)),
        ("2026-11-22T09:59:00+23:59", Int64(1_795_255_200_000)),
        ("2026-11-21T10:00:00-00:00", Int64(1_795_255_200_000)),
    ])
    func aLocalTimeWithItsOffsetIsTheUTCInstantItNamesWhenOffsetsAreAllowed(_ text: String, _ expected: Int64) {
        #expect(RFC3339.milliseconds(text, anyOffset: true) == expected)
        #expect(RFC3339.milliseconds(text) == nil, "only UTC when offsets are not allowed")
    }

    @Test(arguments: ["2026-11-21T10:00:00+24:00", "2026-11-21T10:00:00+01:60", "2026-11-21T10:00:00+0100", "2026-11-21T10:00:00+01"])
    func anOffsetOutsideRFC3339IsRefused(_ text: String) {
        #expect(RFC3339.milliseconds(text, anyOffset: true) == nil)
    }

    @Test(arguments: [Int64(0), 1_795_255_200_250, -1000, 951_782_400_001, 4_102_444_800_000])
    func formattingAndParsingRoundTrip(_ milliseconds: Int64) {
        let text = RFC3339.string(milliseconds)
        #expect(text.hasSuffix("Z"))
        #expect(RFC3339.milliseconds(text) == milliseconds)
    }
}
