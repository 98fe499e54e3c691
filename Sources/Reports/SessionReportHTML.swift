import Foundation
import HexCoding
import Output
import TimeCoding

/// A ``SessionReport`` as one self-contained HTML page: inline styles, inline SVG, the recording as a
/// data URL, and a few lines of script that the page works without (they make a click on a segment
/// play the recording from there). The same report always gives the same bytes.
package enum SessionReportHTML {
    /// The timeline's width in SVG units, whatever the session's length: the drawing is scaled to the
    /// width of its column (zoom to fit), so a one-hour session shows whole, as a two-minute one does.
    /// About the column's width on a laptop screen, so that its 11-unit text reads at about 11 pixels.
    static func timelineWidth(_ milliseconds: Int64) -> Int { 760 }

    static let waveformTop = 24, waveformHeight = 120
    static let segmentsTop = 152, laneHeight = 20, lanes = 2
    /// Room left and right of the time axis, so that a marker or a tick label at either end shows whole.
    static let margin = 24
    static let revisionsTop = 194, revisionRow = 5, revisionRows = 8
    static let markersTop = 240
    static let height = 262

    package static func render(_ report: SessionReport) -> String {
        var page = Page()
        page.line("<!DOCTYPE html>")
        page.line(#"<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">"#)
        page.line("<title>Session \(escape(Hex.uuid(report.session))) · SessionStore report</title>")
        page.line("<style>\(pageStyle)\(partsStyle)\(report.runs.isEmpty ? "" : TrendChart.style)</style></head><body>")
        header(report, &page)
        if report.isShredded {
            page.line(#"<p class="notice">"# + escape(shreddedNotice(report)) + "</p>")
        }
        page.line(#"<main>"#)
        timeline(report, &page)
        transcript(report, &page)
        page.line("</main>")
        runs(report, &page)
        findings(report, &page)
        page.line("<script>\(script)</script>")
        page.line("</body></html>")
        return page.text
    }

    // MARK: Parts

    /// The timeline's drawing (an SVG) and, after it, its legend, for a page that plays the recording
    /// itself (the web console): segments are links with `data-start-ms`, the time on the recording's axis.
    package static func timelineDrawing(_ report: SessionReport) -> (svg: String, legend: String) {
        var page = Page()
        drawing(report, &page)
        return (page.text, legend)
    }

    /// The transcript section: each committed segment an `li` with `data-from-ms` and `data-to-ms`.
    package static func transcriptSection(_ report: SessionReport) -> String {
        var page = Page()
        transcript(report, &page)
        return page.text
    }

    /// The consent and violations table.
    package static func findingsSection(_ report: SessionReport) -> String {
        var page = Page()
        findings(report, &page)
        return page.text
    }

    private static func header(_ report: SessionReport, _ page: inout Page) {
        let summary = report.summary
        page.line("<header><h1>Session <code>\(escape(Hex.uuid(report.session)))</code></h1><dl>")
        func fact(_ name: String, _ value: String, _ className: String? = nil) {
            page.line("<dt>\(escape(name))</dt><dd\(className.map { #" class="\#($0)""# } ?? "")>\(escape(value))</dd>")
        }
        fact("Status", summary.status.rawValue, "status-\(summary.status.rawValue)")
        fact("Subject", summary.subject.map { "\($0)" } ?? "—", "hash")
        fact("Locale", summary.locale ?? "—")
        fact("Started", summary.startedAt.map(RFC3339.string) ?? "—")
        fact("Ended", summary.endedAt.map(RFC3339.string) ?? "—")
        fact("Duration", summary.durationMilliseconds.map(clock) ?? "—")
        if report.isShredded {
            fact("Integrity", "the records cannot be opened: their keys are destroyed (verify checks them without the key)")
        } else {
            fact("Integrity", "\(report.recordsAuthenticated) records read, each with its leaf hash and authentication tag checked")
            fact("Replay digest", report.replayDigest ?? "—", "hash")
            if let divergence = report.replayDivergence {
                fact("Replay verify", "FAILED: \(divergence)", "bad")
            } else {
                fact("Replay verify", "passed: replaying the events rebuilds the stored views exactly", "good")
            }
        }
        fact("Violations", report.violations.isEmpty ? "none" : "\(report.violations.count)", report.violations.isEmpty ? "good" : "bad")
        fact("Audio", report.audio != nil ? "embedded (FLAC): this file holds the recording in clear"
             : report.waveform != nil ? "not embedded (--no-audio)" : "no recording")
        if let asOf = report.options.asOf { fact("As of", RFC3339.string(asOf)) }
        page.line("</dl></header>")
    }

    /// The session's runs: their word error rates in the order they were driven, as a chart and a table.
    private static func runs(_ report: SessionReport, _ page: inout Page) {
        guard !report.runs.isEmpty else { return }
        page.line(#"<section class="runs"><h2>Runs of this session</h2>"#)
        let points = report.runs.map { run in
            TrendChart.Point(label: run.label ?? String(Hex.uuid(run.run).prefix(8)), rate: run.wordErrorRate,
                             detail: "\(run.label ?? Hex.uuid(run.run)): word error rate \(percent(run.wordErrorRate)), driven \(RFC3339.string(run.drivenAt))")
        }
        page.line(#"<figure class="chart">"# + TrendChart.svg(points, title: "Word error rate of each run, in the order they were driven") + "</figure>")
        page.line("<table><thead><tr><th>Run</th><th>Label</th><th>Driven</th><th>Word error rate</th><th>Errors / words</th></tr></thead><tbody>")
        for run in report.runs {
            page.line("<tr><td><code>\(escape(Hex.uuid(run.run)))</code></td><td>\(escape(run.label ?? "—"))</td><td>\(RFC3339.string(run.drivenAt))</td>"
                      + "<td>\(percent(run.wordErrorRate))</td><td>\(run.errors) / \(run.referenceWords)</td></tr>")
        }
        page.line("</tbody></table></section>")
    }

    private static func percent(_ rate: Double) -> String { String(format: "%.1f%%", rate * 100) }

    private static func shreddedNotice(_ report: SessionReport) -> String {
        let how = report.summary.status == .erased ? "erased at the person's request" : "purged by the retention policy"
        return "This session was \(how): its data keys are destroyed, so its transcript and audio cannot be read by any means. "
            + "Its consent trail remains."
    }

    private static func timeline(_ report: SessionReport, _ page: inout Page) {
        page.line(#"<section class="timeline"><h2>Timeline</h2><div class="scroll">"#)
        drawing(report, &page)
        page.line("</div>")
        if let audio = report.audio {
            page.line(#"<audio id="recording" controls preload="metadata" src="data:\#(audio.mimeType);base64,\#(Data(audio.bytes).base64EncodedString())"></audio>"#)
        }
        page.line(legend)
        page.line("</section>")
    }

    private static let legend = #"<p class="legend"><span class="key segment"></span>committed segment <span class="key revision"></span>partial revisions <span class="key pause"></span>pause <span class="key play"></span>playback <span class="key consent-granted"></span>consent granted <span class="key consent-revoked"></span>consent revoked <span class="key violation"></span>violation</p>"#

    private static func drawing(_ report: SessionReport, _ page: inout Page) {
        let duration = max(report.durationMilliseconds, 1)
        let width = timelineWidth(duration)
        func x(_ milliseconds: Int64) -> String {
            tenths(margin * 10 + Int(max(0, min(milliseconds, duration)) * Int64(width) * 10 / duration))
        }
        page.line(#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \#(width + 2 * margin) \#(height)" preserveAspectRatio="xMinYMin meet" role="img" aria-label="Timeline of the session, \#(clock(duration)) long">"#)
        // Time axis.
        let step = tickStep(duration, width: width)
        page.line(#"<g class="axis">"#)
        var tick: Int64 = 0
        while tick <= duration {
            let anchor = tick == 0 ? "start" : "middle"
            page.line(#"<line x1="\#(x(tick))" y1="14" x2="\#(x(tick))" y2="\#(height)"/><text x="\#(x(tick))" y="11" text-anchor="\#(anchor)">\#(clock(tick))</text>"#)
            tick += step
        }
        page.line("</g>")
        if let waveform = report.waveform, waveform.columns > 0 {
            let drawn = Double(report.audioMilliseconds) * Double(width) / Double(duration)
            let scale = drawn / Double(waveform.columns)
            page.line(#"<path class="waveform" transform="translate(\#(margin) \#(waveformTop)) scale(\#(number(scale)) 1)" d="\#(waveform.path(height: waveformHeight))"/>"#)
        } else {
            page.line(#"<text class="empty" x="\#(margin + 8)" y="\#(waveformTop + waveformHeight / 2)">\#(report.isShredded ? "no audio: erased" : "no recording")</text>"#)
        }
        for pause in report.pauses {
            page.line(#"<rect class="pause" x="\#(x(pause.fromMilliseconds))" y="\#(waveformTop)" width="\#(span(pause.fromMilliseconds, pause.toMilliseconds, duration, width))" height="\#(waveformHeight)"><title>paused \#(clock(pause.fromMilliseconds))–\#(clock(pause.toMilliseconds))</title></rect>"#)
        }
        let lanes = lanes(report.segments)
        for (index, segment) in report.segments.enumerated() {
            let segmentWidth = span(segment.startMilliseconds, segment.endMilliseconds, duration, width)
            let top = segmentsTop + lanes[index] * laneHeight
            let speaker = segment.speaker.map { "\($0): " } ?? ""
            // The title belongs to the link, so that the rectangle and its label both show the whole text.
            page.line(##"<a href="#segment-\##(index + 1)" data-start-ms="\##(segment.startMilliseconds)"><title>\##(escape(speaker + segment.text))</title><rect id="timeline-\##(index + 1)" class="segment" x="\##(x(segment.startMilliseconds))" y="\##(top)" width="\##(segmentWidth)" height="\##(laneHeight - 2)"/>"##)
            if let label = label(speaker + segment.text, fitting: (Int(Double(segmentWidth) ?? 0) - 6) / 7) {
                page.line(#"<text class="segment-text" x="\#(x(segment.startMilliseconds + 0))" dx="3" y="\#(top + 13)">\#(escape(label))</text>"#)
            }
            page.line("</a>")
            for (row, revision) in segment.revisions.suffix(revisionRows).enumerated() {
                let y = revisionsTop + row * revisionRow
                page.line(#"<line class="revision" x1="\#(x(segment.startMilliseconds))" y1="\#(y)" x2="\#(x(segment.endMilliseconds))" y2="\#(y)"><title>revision \#(revision.revision): \#(escape(revision.text))</title></line>"#)
            }
        }
        // Without a waveform, marker lines start below its lane, clear of the "no recording" label.
        let markerTop = report.waveform?.columns ?? 0 > 0 ? waveformTop : segmentsTop
        for marker in report.markers {
            let classes = "marker \(marker.kind.rawValue)"
            page.line(#"<g class="\#(classes)"><line x1="\#(x(marker.atMilliseconds))" y1="\#(markerTop)" x2="\#(x(marker.atMilliseconds))" y2="\#(markersTop + 16)"/>"#
                      + #"<circle cx="\#(x(marker.atMilliseconds))" cy="\#(markersTop + 8)" r="5"/>"#
                      + (marker.toMilliseconds.map { #"<line class="seek-to" x1="\#(x(marker.atMilliseconds))" y1="\#(markersTop + 8)" x2="\#(x($0))" y2="\#(markersTop + 8)"/>"# } ?? "")
                      + "<title>\(clock(marker.atMilliseconds)) \(escape(marker.label))</title></g>")
        }
        page.line("</svg>")
    }

    private static func transcript(_ report: SessionReport, _ page: inout Page) {
        page.line(#"<section class="transcript"><h2>Transcript</h2>"#)
        if report.isShredded {
            page.line(#"<p class="empty">No transcript: it cannot be read.</p></section>"#)
            return
        }
        if report.segments.isEmpty { page.line(#"<p class="empty">No committed segment.</p>"#) }
        page.line("<ol>")
        for (index, segment) in report.segments.enumerated() {
            page.line(##"<li id="segment-\##(index + 1)" data-from-ms="\##(segment.startMilliseconds)" data-to-ms="\##(segment.endMilliseconds)"><a class="time" href="#timeline-\##(index + 1)" data-start-ms="\##(segment.startMilliseconds)">\##(clock(segment.startMilliseconds))</a> "##
                      + (segment.speaker.map { #"<span class="speaker">\#(escape($0))</span> "# } ?? "")
                      + #"<span class="text">\#(escape(segment.text))</span>"#
                      + (segment.committedText.map { #" <span class="committed">(committed as “\#(escape($0))”)</span>"# } ?? ""))
            if !segment.revisions.isEmpty {
                page.line("<details><summary>how it settled: \(segment.revisions.count) partial \(segment.revisions.count == 1 ? "guess" : "guesses")</summary><ol class=\"revisions\">")
                for revision in segment.revisions {
                    page.line(#"<li value="\#(revision.revision)">\#(escape(revision.text))</li>"#)
                }
                page.line("</ol></details>")
            }
            page.line("</li>")
        }
        page.line("</ol>")
        if !report.uncommitted.isEmpty {
            page.line(#"<h3>Never committed</h3><ul class="uncommitted">"#)
            for segment in report.uncommitted {
                page.line("<li>\(clock(segment.startMilliseconds)) \(escape(segment.text))</li>")
            }
            page.line("</ul>")
        }
        page.line("</section>")
    }

    private static func findings(_ report: SessionReport, _ page: inout Page) {
        page.line(#"<section class="findings"><h2>Consent and violations</h2><table><thead><tr><th>occurred at</th><th>what</th><th>position</th></tr></thead><tbody>"#)
        for entry in report.consent {
            page.line("<tr><td>\(RFC3339.string(entry.occurredAt))</td><td>\(escape(entry.consentType)) consent \(entry.granted ? "granted" : "revoked") (\(escape(entry.method))\(entry.policyVersion.map { ", policy \(escape($0))" } ?? ""))</td><td>\(entry.position)</td></tr>")
        }
        for violation in report.violations {
            page.line(#"<tr class="bad"><td>\#(RFC3339.string(violation.occurredAt))</td><td>\#(escape(violation.rule.rawValue)): \#(escape(violation.detail))</td><td>\#(violation.position)</td></tr>"#)
        }
        page.line("</tbody></table></section>")
    }

    // MARK: Formatting

    private struct Page {
        var text = ""
        mutating func line(_ line: String) {
            text += line
            text += "\n"
        }
    }

    /// `m:ss.t`, or `h:mm:ss.t` from an hour on.
    static func clock(_ milliseconds: Int64) -> String {
        let sign = milliseconds < 0 ? "-" : ""
        let value = abs(milliseconds)
        let tenths = value / 100 % 10, seconds = value / 1000 % 60, minutes = value / 60_000 % 60, hours = value / 3_600_000
        let mmss = (minutes < 10 && hours > 0 ? "0" : "") + "\(minutes):" + (seconds < 10 ? "0" : "") + "\(seconds).\(tenths)"
        return sign + (hours > 0 ? "\(hours):" : "") + mmss
    }

    private static func tenths(_ value: Int) -> String { value % 10 == 0 ? "\(value / 10)" : "\(value / 10).\(value % 10)" }

    private static func span(_ from: Int64, _ to: Int64, _ duration: Int64, _ width: Int) -> String {
        tenths(max(10, Int(max(0, to - from) * Int64(width) * 10 / duration)))
    }

    private static func number(_ value: Double) -> String { String(format: "%.6f", value) }

    /// A lane (row) per segment, so that segments that overlap in time (two speakers at once) do not
    /// cover each other: the first lane whose last segment has ended, else the lane that frees first.
    private static func lanes(_ segments: [SessionReport.Segment]) -> [Int] {
        var ends = [Int64](repeating: .min, count: lanes)
        return segments.map { segment in
            let lane = ends.firstIndex { $0 <= segment.startMilliseconds } ?? ends.indices.min { ends[$0] < ends[$1] }!
            ends[lane] = segment.endMilliseconds
            return lane
        }
    }

    private static func tickStep(_ duration: Int64, width: Int) -> Int64 {
        let steps: [Int64] = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600].map { $0 * 1000 }
        return steps.first { $0 * Int64(width) / duration >= 80 } ?? 3_600_000
    }

    /// `text` if it fits in `characters`, else its longest run of whole words that fits with "…" after
    /// them (never a word cut in two), else nil: then only the link's title (a tooltip) shows the text.
    static func label(_ text: String, fitting characters: Int) -> String? {
        guard characters > 0 else { return nil }
        if text.count <= characters { return text }
        var kept = ""
        for word in text.split(whereSeparator: \.isWhitespace) {
            let longer = kept.isEmpty ? String(word) : kept + " " + word
            if longer.count + 1 > characters { break }
            kept = longer
        }
        // A speaker's name alone ("slt:") says nothing of the words.
        return kept.isEmpty || kept.hasSuffix(":") ? nil : kept + "…"
    }

    /// Text safe in HTML and SVG content and in double-quoted attributes.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\u{0}"..."\u{8}", "\u{B}", "\u{C}", "\u{E}"..."\u{1F}", "\u{7F}": out += "\u{FFFD}"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// The report page's own layout: its body, header and two columns.
    static let pageStyle = embeddedText(PackageResources.report_page_css)

    /// The timeline's, the transcript's and the findings' styles, which the web console uses too.
    package static let partsStyle = embeddedText(PackageResources.report_parts_css)

    /// A click on a segment (in the timeline or the transcript) plays the recording from its start;
    /// without script the links still lead from one to the other.
    static let script = embeddedText(PackageResources.report_js)
}
