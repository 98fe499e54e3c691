import Reports
import Testing

/// The Runs page's chart: one line through labels that drove the same sessions, a marked break where they did not.
@Suite struct TrendChartTests {
    static func count(_ text: String, in svg: String) -> Int { svg.components(separatedBy: text).count - 1 }

    @Test func labelsThatDroveTheSameSessionsAreJoinedByOneLine() {
        let svg = TrendChart.svg([TrendChart.Point(label: "v1", rate: 0.2, detail: "v1"), TrendChart.Point(label: "v2", rate: 0.1, detail: "v2"),
                                  TrendChart.Point(label: "v3", rate: 0.15, detail: "v3")], title: "t")
        #expect(Self.count("<polyline", in: svg) == 1)
        #expect(Self.count(#"class="break""#, in: svg) == 0)
    }

    @Test func aLabelThatDroveOtherSessionsStartsANewLineAfterAMarkedBreak() {
        let svg = TrendChart.svg([TrendChart.Point(label: "v1", rate: 0.2, detail: "v1"), TrendChart.Point(label: "v2", rate: 0.1, detail: "v2"),
                                  TrendChart.Point(label: "v3", rate: 0.5, detail: "v3", joinsPrevious: false)], title: "t")
        #expect(Self.count("<polyline", in: svg) == 2)
        #expect(Self.count(#"class="break""#, in: svg) == 1)
        #expect(svg.contains("<title>v2 and v3 drove different sessions</title>"))
        #expect(Self.count("<circle", in: svg) == 3, "every label keeps its point")
    }
}
