/// Media times as subtitle and CSV exports write them: `HH:MM:SS.mmm` (hours at least two digits).
enum Timecode {
    static func string(_ milliseconds: UInt64, separator: Character = ".") -> String {
        let hours = milliseconds / 3_600_000
        let minutes = milliseconds / 60_000 % 60
        let seconds = milliseconds / 1000 % 60
        let millis = milliseconds % 1000
        return pad(hours, 2) + ":" + pad(minutes, 2) + ":" + pad(seconds, 2) + String(separator) + pad(millis, 3)
    }

    private static func pad(_ value: UInt64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
