import Foundation
import Projections
import Testing

@Suite struct SessionListKeyTests {
    private func summary(_ id: String, startedAt: Int64?) -> SessionSummary {
        var summary = SessionSummary(session: UUID(uuidString: id)!)
        summary.startedAt = startedAt
        return summary
    }

    @Test func sessionsSortByStartTimeThenByTheirIdsBytesWithAMissingStartFirst() {
        let late = summary("00000000-0000-4000-8000-000000000001", startedAt: 2_000)
        let earlyHigh = summary("ff000000-0000-4000-8000-000000000000", startedAt: 1_000)
        let earlyLow = summary("0f000000-0000-4000-8000-000000000000", startedAt: 1_000)
        let unstarted = summary("f0000000-0000-4000-8000-000000000000", startedAt: nil)
        #expect([late, earlyHigh, unstarted, earlyLow].sortedByStart().map(\.session) ==
                [unstarted, earlyLow, earlyHigh, late].map(\.session))
    }

    @Test func aKeyReadsBackFromWhatItWrites() throws {
        let key = SessionListKey(value: -1, id: UUID(uuidString: "3F2C8A1E-5B7D-4C9E-8F10-2A3B4C5D6E7F")!)
        #expect(key.description == "-1.3f2c8a1e-5b7d-4c9e-8f10-2a3b4c5d6e7f")
        #expect(SessionListKey(key.description) == key)
        #expect(SessionListKey("12") == nil && SessionListKey("x.3f2c8a1e-5b7d-4c9e-8f10-2a3b4c5d6e7f") == nil)
    }
}
