/// Parses RFC 3339 timestamps in UTC, `2026-11-21T10:00:00.250Z`, to milliseconds since 1970.
/// The offset must be `Z` or `+00:00` unless any offset is allowed; fractions beyond milliseconds are truncated.
package enum RFC3339 {
    /// Milliseconds since 1970 of an RFC 3339 UTC time such as `2026-11-21T10:00:00.250Z`, or `nil` when `text` is not one.
    package static func milliseconds(_ text: String) -> Int64? {
        milliseconds(text, anyOffset: false)
    }

    /// ``milliseconds(_:)``; with `anyOffset`, a local time with its offset (`2026-11-21T11:00:00+01:00`) too.
    package static func milliseconds(_ text: String, anyOffset: Bool) -> Int64? {
        let b = Array(text.utf8)
        guard b.count >= 20, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
              b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t"),
              b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
              let year = digits(b, 0, 4), let month = digits(b, 5, 2), let day = digits(b, 8, 2),
              let hour = digits(b, 11, 2), let minute = digits(b, 14, 2), let second = digits(b, 17, 2),
              (1...12).contains(month), (1...daysIn(month, year)).contains(day),
              hour < 24, minute < 60, second < 61 else { return nil }
        var index = 19
        var millis = 0
        if index < b.count, b[index] == UInt8(ascii: ".") {
            index += 1
            let start = index
            while index < b.count, (48...57).contains(b[index]) {
                if index - start < 3 { millis = millis * 10 + Int(b[index] - 48) }
                index += 1
            }
            guard index > start else { return nil }
            for _ in 0..<max(0, 3 - (index - start)) { millis *= 10 }
        }
        let rest = Array(b[index...])
        var offsetMinutes = 0
        if rest != Array("Z".utf8), rest != Array("z".utf8) {
            guard rest.count == 6, rest[0] == UInt8(ascii: "+") || rest[0] == UInt8(ascii: "-"), rest[3] == UInt8(ascii: ":"),
                  let hours = digits(rest, 1, 2), let minutes = digits(rest, 4, 2), hours < 24, minutes < 60 else { return nil }
            offsetMinutes = (hours * 60 + minutes) * (rest[0] == UInt8(ascii: "-") ? -1 : 1)
            guard anyOffset || offsetMinutes == 0 && rest[0] == UInt8(ascii: "+") else { return nil }
        }
        let days = daysFromCivil(year, month, day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + min(second, 59)) - Int64(offsetMinutes * 60)
        return seconds * 1000 + Int64(millis)
    }

    /// The canonical form with milliseconds: `2026-11-21T10:00:00.250Z`.
    package static func string(_ milliseconds: Int64) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(24)
        append(milliseconds, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the canonical form: digits straight into the buffer, as this runs for every row of a listing.
    package static func append(_ milliseconds: Int64, to out: inout [UInt8]) {
        let (days, dayMillis) = milliseconds.quotientAndRemainder(dividingBy: 86_400_000)
        let (wholeDays, millisOfDay) = dayMillis < 0 ? (days - 1, dayMillis + 86_400_000) : (days, dayMillis)
        let (year, month, day) = civilFromDays(Int(wholeDays))
        let seconds = Int(millisOfDay / 1000)
        func put(_ value: Int, _ width: Int, then separator: Unicode.Scalar) {
            var divisor = width == 4 ? 1000 : width == 3 ? 100 : 10
            while divisor > 0 {
                out.append(UInt8(48 + value / divisor % 10))
                divisor /= 10
            }
            out.append(UInt8(separator.value))
        }
        put(year, 4, then: "-"); put(month, 2, then: "-"); put(day, 2, then: "T")
        put(seconds / 3600, 2, then: ":"); put(seconds / 60 % 60, 2, then: ":"); put(seconds % 60, 2, then: ".")
        put(Int(millisOfDay % 1000), 3, then: "Z")
    }

    private static func digits(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int? {
        var value = 0
        for byte in bytes[start..<(start + count)] {
            guard (48...57).contains(byte) else { return nil }
            value = value * 10 + Int(byte - 48)
        }
        return value
    }

    private static func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
