import Output
import Projections

/// WebVTT and SRT cues, one per committed segment, written as they come.
struct SubtitleWriter {
    let format: ExportFormat
    let options: ExportOptions
    let sink: OutputSink
    private var cues = 0

    init(format: ExportFormat, options: ExportOptions, sink: OutputSink) {
        precondition(format == .vtt || format == .srt, "subtitles are vtt or srt")
        self.format = format
        self.options = options
        self.sink = sink
        if format == .vtt { sink.write("WEBVTT\n") }
    }

    /// A WebVTT `NOTE` block (players and parsers skip it); SRT has no comments, so nothing there.
    func note(_ text: String) {
        if format == .vtt { sink.write("\nNOTE " + Self.withoutBlankLines(text).replacingOccurrences(of: "-->", with: "->") + "\n") }
    }

    /// Writes the cue of `segment`. A cue must end after it starts: a segment of no length lasts 1 ms.
    mutating func write(_ segment: TranscriptView.Segment) throws(OutputError) {
        cues += 1
        let start = segment.startMilliseconds
        let end = max(segment.endMilliseconds, start + 1)
        let text = Self.withoutBlankLines(options.text(segment.currentText))
        switch format {
        case .vtt:
            sink.write("\n" + Timecode.string(start) + " --> " + Timecode.string(end) + "\n")
            let voice = segment.speaker.map { "<v " + Self.escapedVTT($0.replacingOccurrences(of: "\n", with: " ")) + ">" } ?? ""
            sink.write(voice + Self.escapedVTT(text) + "\n")
        default:
            sink.write("\(cues)\n" + Timecode.string(start, separator: ",") + " --> " + Timecode.string(end, separator: ",") + "\n")
            let speaker = segment.speaker.map { $0.replacingOccurrences(of: "\n", with: " ") + ": " } ?? ""
            sink.write(speaker + text + "\n\n")
        }
        try sink.flushIfFull()
    }

    /// A cue's text may not hold an empty line (it would end the cue): line ends are normalised to
    /// `\n` and runs of them collapsed into one; leading and trailing ones dropped.
    static func withoutBlankLines(_ text: String) -> String {
        text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: true)
            .filter { !$0.allSatisfy(\.isWhitespace) }
            .joined(separator: "\n")
    }

    /// `&`, `<` and `>` as character references: a cue's text then holds no tag and no `-->`.
    static func escapedVTT(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(character)
            }
        }
        return out
    }
}
