import Foundation
import Testing
import TestSupport
import TimeCoding

/// The report's timeline as a browser lays it out, for a two-minute session and a one-hour one, on a
/// laptop screen and a phone-width one: it fits the page (no horizontal scroll, every segment and tick
/// inside), no label runs past its segment or over another, no label is cut mid-word, each label's
/// link holds the whole text as its title, and the "no recording" note is clear of the markers. A
/// script appended to the page measures it in Chromium (headless) and the DOM dump carries the result.
@Suite(.timeLimit(.minutes(10))) struct ReportLayoutTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var seconds: Int
        var width: Int
        var testDescription: String { "\(name) at \(width) px" }
    }

    static let cases = [Case(name: "two minutes", seconds: 127, width: 1280), Case(name: "two minutes", seconds: 127, width: 400),
                        Case(name: "one hour", seconds: 3600, width: 1280), Case(name: "one hour", seconds: 3600, width: 400)]

    /// A session of `seconds` with no recording, committed segments of 3.4 s every 4 to 6 s and every
    /// fifth one 14 s long (alternating speakers, one text a single long word), consent granted at the
    /// start and revoked at the end.
    static func session(seconds: Int) -> (id: String, ndjson: String) {
        let id = "5e551011-0000-4000-8000-\(String(format: "%012d", seconds))"
        func at(_ milliseconds: Int) -> String { RFC3339Text.string(1_795_251_600_000 + Int64(milliseconds)) }
        var lines = [
            #"{"type":"session.started","session":"\#(id)","at":"\#(at(0))","subject":"layout","locale":"en-GB"}"#,
            #"{"type":"consent.granted","session":"\#(id)","at":"\#(at(100))","subject":"layout","consent_type":"transcription","method":"in_app_prompt"}"#,
        ]
        let texts = ["How are you feeling today after the new medication", "Supercalifragilisticexpialidocious",
                     "Better, thank you, the pain in my left knee is almost gone", "Good."]
        var start = 0, index = 0
        while start + 3_500 < seconds * 1000 {
            let speaker = index % 2 == 0 ? "slt" : "rms"
            let length = index % 5 == 4 ? 14_000 : 3_400
            lines.append(#"{"type":"transcript.committed","session":"\#(id)","at":"\#(at(start + length + 200))","segment":"\#(index)","text":"\#(texts[index % texts.count])","start_ms":\#(start),"end_ms":\#(start + length),"speaker":"\#(speaker)"}"#)
            start += length + (index % 3 == 0 ? 2_600 : 600)
            index += 1
        }
        lines.append(#"{"type":"consent.revoked","session":"\#(id)","at":"\#(at(seconds * 1000 - 200))","subject":"layout","consent_type":"transcription","method":"settings"}"#)
        lines.append(#"{"type":"session.ended","session":"\#(id)","at":"\#(at(seconds * 1000))"}"#)
        return (id, lines.joined(separator: "\n") + "\n")
    }

    static let measure = """
        <script>(function(){
        function meets(a,b){return a.left<b.right-0.5&&b.left<a.right-0.5&&a.top<b.bottom-0.5&&b.top<a.bottom-0.5;}
        var r={},svg=document.querySelector(".timeline svg"),box=svg.getBoundingClientRect();
        r.pageScrolls=document.documentElement.scrollWidth>window.innerWidth;r.svgWidth=box.width;
        function outside(e){var b=e.getBoundingClientRect();return b.left<box.left-0.5||b.right>box.right+0.5;}
        var segments=[].slice.call(document.querySelectorAll("rect.segment"));r.segments=segments.length;
        r.segmentsOutside=segments.filter(outside).length;
        var ticks=[].slice.call(document.querySelectorAll(".axis text"));r.ticks=ticks.length;r.ticksOutside=ticks.filter(outside).length;
        var labels=[].slice.call(document.querySelectorAll("text.segment-text"));r.labels=labels.length;
        r.labelsPastSegment=labels.filter(function(t){var s=t.parentNode.querySelector("rect.segment").getBoundingClientRect();
          return t.getBoundingClientRect().right>s.right+0.5;}).length;
        r.labelsCutMidWord=labels.filter(function(t){var title=t.parentNode.querySelector("title");if(!title)return true;
          var whole=title.textContent,shown=t.textContent;if(shown.slice(-1)!=="\\u2026")return shown!==whole;
          var kept=shown.slice(0,-1);return whole.indexOf(kept)!==0||(whole.charAt(kept.length)!==" ");}).length;
        var boxes=labels.map(function(t){return t.getBoundingClientRect();}),overlaps=0;
        for(var i=0;i<boxes.length;i++)for(var j=i+1;j<boxes.length;j++)if(meets(boxes[i],boxes[j]))overlaps++;r.labelOverlaps=overlaps;
        var empty=document.querySelector("svg text.empty");r.emptyOverlapsMarker=!!empty&&[].slice.call(document.querySelectorAll(".marker line,.marker circle"))
          .some(function(m){return meets(m.getBoundingClientRect(),empty.getBoundingClientRect());});
        var pre=document.createElement("pre");pre.id="layout";pre.textContent=JSON.stringify(r);document.body.appendChild(pre);})();</script>
        """

    @Test(.enabled(if: ReportBrowserTests.enabled, "needs chromium"), arguments: cases)
    func theTimelineFitsThePageAndItsLabelsAreWholeWordsThatOverlapNothing(_ test: Case) async throws {
        try await withCLI { cli in
            let (id, ndjson) = Self.session(seconds: test.seconds)
            try ndjson.write(to: cli.directory.appendingPathComponent("s.ndjson"), atomically: true, encoding: .utf8)
            #expect(try cli.run(["init"]).status == 0)
            let ingest = try cli.run(["ingest", "s.ndjson"])
            try #require(ingest.status == 0, "\(ingest.stderr)")
            let page = cli.directory.appendingPathComponent("report.html")
            #expect(try cli.run(["report", id, "--out", page.path]).status == 0)
            let measured = cli.directory.appendingPathComponent("measured.html")
            let html = try String(contentsOf: page, encoding: .utf8).replacingOccurrences(of: "</body>", with: Self.measure + "</body>")
            try html.write(to: measured, atomically: true, encoding: .utf8)

            let dump = try ReportBrowserTests().browse(measured, ["--window-size=\(test.width),900", "--dump-dom"])
            let dom = dump.stdoutText
            let start = try #require(dom.range(of: #"<pre id="layout">"#), "no measurement in the DOM: \(dump.stderr)")
            let end = try #require(dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex))
            let json = String(dom[start.upperBound..<end.lowerBound])
                .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
            let layout = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            #expect(layout["pageScrolls"] as? Bool == false, "\(layout)")
            #expect((layout["segments"] as? Int ?? 0) >= 20, "\(layout)")
            for key in ["segmentsOutside", "ticksOutside", "labelsPastSegment", "labelsCutMidWord", "labelOverlaps"] {
                #expect(layout[key] as? Int == 0, "\(key): \(layout)")
            }
            #expect((layout["ticks"] as? Int ?? 0) >= 4, "the time axis is labelled: \(layout)")
            #expect(layout["emptyOverlapsMarker"] as? Bool == false, "\(layout)")
            if test.seconds < 600, test.width >= 1280 { #expect((layout["labels"] as? Int ?? 0) > 0, "short sessions show labels: \(layout)") }

            let screenshot = cli.directory.appendingPathComponent("report.png")
            _ = try ReportBrowserTests().browse(page, ["--window-size=\(test.width),900", "--screenshot=\(screenshot.path)"])
            #expect((try? Data(contentsOf: screenshot))?.count ?? 0 > 10_000, "a rendered screenshot")
            if let keep = ProcessInfo.processInfo.environment["REPORT_SCREENSHOTS"] {
                try? FileManager.default.copyItem(at: screenshot, to: URL(fileURLWithPath: keep)
                    .appendingPathComponent("report-\(test.seconds)s-\(test.width)px.png"))
            }
        }
    }
}

/// RFC 3339 text for a test's NDJSON, UTC with milliseconds.
enum RFC3339Text {
    static func string(_ milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}
