import Foundation

/// Durations as people write them: `90d`, `12h`, `30m`, `45s`, `250ms`.
package enum DurationText {
    /// Milliseconds, or nil for anything else than a positive whole number and one of those units.
    package static func milliseconds(_ text: String) -> Int64? {
        let units: [(String, Int64)] = [("ms", 1), ("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000)]
        for (unit, factor) in units where text.hasSuffix(unit) {
            guard let count = Int64(text.dropLast(unit.count)), count > 0 else { return nil }
            let (product, overflow) = count.multipliedReportingOverflow(by: factor)
            return overflow ? nil : product
        }
        return nil
    }

    /// `30d`, `12h`, `90m`, `45s` or `250ms` when exact, else days with one decimal: `325.9d`.
    package static func text(_ milliseconds: Int64) -> String {
        for (unit, factor) in [("d", Int64(86_400_000)), ("h", 3_600_000), ("m", 60_000), ("s", 1000)]
        where milliseconds >= factor && milliseconds % factor == 0 {
            return "\(milliseconds / factor)\(unit)"
        }
        if milliseconds < 86_400_000 { return "\(milliseconds)ms" }
        return String(format: "%.1fd", Double(milliseconds) / 86_400_000)
    }
}
