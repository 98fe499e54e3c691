import Foundation

/// A line chart of word error rates, one point per run label in the order the labels ran, as inline SVG
/// (the console's Runs page, a session report's runs): no script, no library, the same bytes for the
/// same points. Each point carries its label and value as a tooltip and as text under the axis.
package enum TrendChart {
    /// One point: the label under it, its rate, and the text of its tooltip.
    package struct Point: Sendable, Equatable {
        package var label: String
        package var rate: Double
        package var detail: String
        /// Whether the line joins it to the point before: false where the two labels drove different sessions,
        /// whose rates the line would compare as if they were alike.
        package var joinsPrevious: Bool

        package init(label: String, rate: Double, detail: String, joinsPrevious: Bool = true) {
            self.label = label
            self.rate = rate
            self.detail = detail
            self.joinsPrevious = joinsPrevious
        }
    }

    /// What a break in the line means, for the text beside a chart that has one.
    package static let breakNote = "A break in the line (a dashed mark): the labels either side drove different sessions, "
        + "so their rates are not comparable; compare two labels for the sessions they share."

    /// The chart's style, for the page that shows it.
    package static let style = ".chart{margin:.5rem 0;max-width:44rem}svg.trend{width:100%;height:auto}svg.trend .grid{stroke:#e4e7ee}"
        + "svg.trend .axis,svg.trend .tick{font-size:11px;fill:#4f5869}svg.trend .line{fill:none;stroke:#1f5fbf;stroke-width:2}"
        + "svg.trend circle{fill:#1f5fbf}svg.trend .break{stroke:#8a5a00;stroke-width:1.5;stroke-dasharray:4 3}"

    static let width = 640, height = 220
    static let left = 48, right = 16, top = 16, bottom = 48

    /// The chart of `points` titled `title` (its accessible name); empty when there are no points.
    package static func svg(_ points: [Point], title: String) -> String {
        guard !points.isEmpty else { return "" }
        let ceiling = max(1, (points.map(\.rate).max() ?? 0).rounded(.up))
        let plotWidth = Double(width - left - right), plotHeight = Double(height - top - bottom)
        func x(_ index: Int) -> Int {
            points.count == 1 ? left + Int(plotWidth / 2) : left + Int((plotWidth * Double(index) / Double(points.count - 1)).rounded())
        }
        func y(_ rate: Double) -> Int { top + Int((plotHeight * (1 - min(rate, ceiling) / ceiling)).rounded()) }
        var svg = #"<svg class="trend" viewBox="0 0 \#(width) \#(height)" role="img" aria-labelledby="trend-title">"#
        svg += #"<title id="trend-title">\#(SessionReportHTML.escape(title))</title>"#
        for step in 0...4 {
            let rate = ceiling * Double(step) / 4
            svg += #"<line class="grid" x1="\#(left)" y1="\#(y(rate))" x2="\#(width - right)" y2="\#(y(rate))"/>"#
            svg += #"<text class="axis" x="\#(left - 6)" y="\#(y(rate) + 4)" text-anchor="end">\#(Int((rate * 100).rounded()))%</text>"#
        }
        // One line through each run of points that drove the same sessions; a dashed mark where a run ends.
        var runStart = 0
        for end in 1...points.count where end == points.count || !points[end].joinsPrevious {
            let path = (runStart..<end).map { "\(x($0)),\(y(points[$0].rate))" }.joined(separator: " ")
            svg += #"<polyline class="line" points="\#(path)"/>"#
            if end < points.count {
                let middle = (x(end - 1) + x(end)) / 2
                svg += #"<line class="break" x1="\#(middle)" y1="\#(top)" x2="\#(middle)" y2="\#(height - bottom)">"#
                svg += #"<title>\#(SessionReportHTML.escape(points[end - 1].label)) and \#(SessionReportHTML.escape(points[end].label)) drove different sessions</title></line>"#
            }
            runStart = end
        }
        for (index, point) in points.enumerated() {
            svg += #"<g class="point"><circle cx="\#(x(index))" cy="\#(y(point.rate))" r="4"/>"#
            svg += #"<title>\#(SessionReportHTML.escape(point.detail))</title></g>"#
            svg += #"<text class="tick" x="\#(x(index))" y="\#(height - bottom + 18)" text-anchor="middle">\#(SessionReportHTML.escape(short(point.label)))</text>"#
        }
        return svg + "</svg>"
    }

    /// A label cut to 14 characters with "…", so that ticks do not run into each other.
    static func short(_ label: String) -> String {
        label.count <= 14 ? label : String(label.prefix(13)) + "…"
    }
}
