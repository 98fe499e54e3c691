import Foundation
import Output
import Replay

/// A replay suite as JUnit XML, the format CI systems read: one `<testcase>` per session, a
/// `<failure>` for a check that failed (its message naming the worst segment), an `<error>` for a
/// system under test that failed.
enum JUnitReport {
    static func xml(_ outcomes: [DriveOutcome], suite: String = "sessionstore replay") -> String {
        let failures = outcomes.filter { $0.outcome == .failed }.count
        let errors = outcomes.filter { $0.outcome == .error }.count
        let seconds = outcomes.reduce(0) { $0 + $1.seconds }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"\(escaped(suite))\" tests=\"\(outcomes.count)\" failures=\"\(failures)\" errors=\"\(errors)\" time=\"\(time(seconds))\">\n"
        xml += "  <testsuite name=\"\(escaped(suite))\" tests=\"\(outcomes.count)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"0\" time=\"\(time(seconds))\">\n"
        for outcome in outcomes {
            let name = outcome.source.uuidString.lowercased() + (outcome.label.map { " (\($0))" } ?? "")
            xml += "    <testcase name=\"\(escaped(name))\" classname=\"sessionstore.replay\" time=\"\(time(outcome.seconds))\""
            switch outcome.outcome {
            case .failed:
                xml += ">\n      <failure message=\"\(escaped(outcome.message ?? "the check failed"))\" type=\"check\">"
                xml += escaped(details(outcome.comparison)) + "</failure>\n    </testcase>\n"
            case .error:
                xml += ">\n      <error message=\"\(escaped(outcome.message ?? "the drive failed"))\" type=\"drive\"/>\n    </testcase>\n"
            case .completed, .passed:
                xml += "/>\n"
            }
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    /// Each segment with errors, as its alignment.
    private static func details(_ comparison: TranscriptComparison?) -> String {
        guard let comparison else { return "" }
        return comparison.segments.filter { $0.wordErrorRate > 0 }.map {
            "\($0.segment): \(SegmentComparisonRow.marked($0.steps))"
        }.joined(separator: "\n")
    }

    private static func time(_ seconds: Double) -> String { String(format: "%.3f", seconds) }

    /// Text for an XML attribute or element; characters XML 1.0 cannot hold become U+FFFD.
    static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\n": out += "&#10;"
            case "\t", "\r": out += "&#\(scalar.value);"
            default:
                let v = scalar.value
                out.unicodeScalars.append(v < 0x20 || (0xFFFE...0xFFFF).contains(v) ? "\u{FFFD}" : scalar)
            }
        }
        return out
    }
}

extension JUnitReport {
    /// A comparison of two labels as one test case, failed when the candidate is worse than the gate allows;
    /// the numbers in its output.
    static func xml(_ comparison: LabelComparison) -> String {
        let suite = "sessionstore compare", failures = comparison.passed ? 0 : 1
        let name = "\(comparison.candidate.label) against \(comparison.baseline.label)"
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"\(escaped(suite))\" tests=\"1\" failures=\"\(failures)\" errors=\"0\" time=\"0.000\">\n"
        xml += "  <testsuite name=\"\(escaped(suite))\" tests=\"1\" failures=\"\(failures)\" errors=\"0\" skipped=\"0\" time=\"0.000\">\n"
        xml += "    <testcase name=\"\(escaped(name))\" classname=\"sessionstore.compare\" time=\"0.000\">\n"
        if !comparison.passed {
            xml += "      <failure message=\"\(escaped(comparison.gateFailure))\" type=\"check\"/>\n"
        }
        xml += "      <system-out>\(escaped(comparison.summary))</system-out>\n"
        xml += "    </testcase>\n  </testsuite>\n</testsuites>\n"
        return xml
    }
}
