/// JSON scalars appended as bytes (RFC 8259), with no intermediate strings.
package enum JSONText {
    /// `text` as a JSON string literal: quotes, backslashes and control characters escaped, nothing else.
    package static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var start = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                appendEscape(byte, to: &out)
                start = index + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func appendEscape(_ byte: UInt8, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\\"))
        switch byte {
        case 0x22: out.append(0x22)
        case 0x5C: out.append(0x5C)
        case 0x0A: out.append(UInt8(ascii: "n"))
        case 0x0D: out.append(UInt8(ascii: "r"))
        case 0x09: out.append(UInt8(ascii: "t"))
        case 0x08: out.append(UInt8(ascii: "b"))
        case 0x0C: out.append(UInt8(ascii: "f"))
        default:
            out.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]])
        }
    }

    /// An integer in decimal.
    package static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        appendInteger(value.magnitude, to: &out)
    }

    /// An unsigned integer in decimal, digit by digit: no intermediate string.
    package static func appendInteger(_ value: UInt64, to out: inout [UInt8]) {
        var divisor: UInt64 = 1
        while divisor <= value / 10 { divisor *= 10 }
        while divisor > 0 {
            out.append(UInt8(48 + value / divisor % 10))
            divisor /= 10
        }
    }

    /// A finite double in its shortest round-tripping form; NaN and infinities, which JSON cannot
    /// hold, as `null`.
    package static func appendDouble(_ value: Double, to out: inout [UInt8]) {
        guard value.isFinite else { appendNull(to: &out); return }
        out.append(contentsOf: value.description.utf8)
    }

    package static func appendBool(_ value: Bool, to out: inout [UInt8]) {
        out.append(contentsOf: value ? "true".utf8 : "false".utf8)
    }

    package static func appendNull(to out: inout [UInt8]) {
        out.append(contentsOf: "null".utf8)
    }
}
