/// Media times as subtitle and CSV exports write them: `HH:MM:SS.mmm` (hours at least two digits).
enum Timecode {
    static func string(_ milliseconds: UInt64, separator: Character = ".") -> String {
        var out: [UInt8] = []
        out.reserveCapacity(12)
        let hours = milliseconds / 3_600_000
        if hours >= 100 { out.append(contentsOf: String(hours / 100).utf8) }
        func two(_ value: UInt64) {
            out.append(UInt8(48 + value / 10 % 10))
            out.append(UInt8(48 + value % 10))
        }
        two(hours % 100)
        out.append(UInt8(ascii: ":"))
        two(milliseconds / 60_000 % 60)
        out.append(UInt8(ascii: ":"))
        two(milliseconds / 1000 % 60)
        out.append(separator.asciiValue ?? UInt8(ascii: "."))
        out.append(UInt8(48 + milliseconds / 100 % 10))
        two(milliseconds % 100)
        return String(decoding: out, as: UTF8.self)
    }
}
