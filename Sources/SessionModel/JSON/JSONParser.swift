import Foundation

/// A strict RFC 8259 parser for one JSON text, written for ingest: Foundation's JSONSerialization
/// took about 60% of ingest time building NSDictionary and NSNumber objects. Rejects what the RFC
/// rejects (trailing commas, leading zeros, control characters and lone surrogates in strings,
/// invalid UTF-8, trailing content), plus duplicate keys and nesting deeper than 64 levels.
package struct JSONParser {
    package static let maximumDepth = 64

    package static func parse(_ data: Data) throws(JSONSyntaxError) -> JSONValue {
        let result: Result<JSONValue, JSONSyntaxError> = data.withUnsafeBytes { raw in
            var parser = JSONParser(bytes: raw)
            do throws(JSONSyntaxError) {
                parser.skipWhitespace()
                let value = try parser.value(depth: 0)
                parser.skipWhitespace()
                guard parser.offset == raw.count else { throw parser.error("unexpected content after the JSON value") }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    private init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    private func error(_ reason: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: offset, reason: reason)
    }

    private var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { offset += 1 }
    }

    private mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard let byte = current else { throw error("unexpected end of text") }
        switch byte {
        case UInt8(ascii: "{"): return .object(try object(depth: depth + 1))
        case UInt8(ascii: "["): return .array(try array(depth: depth + 1))
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("unexpected character")
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let count = word.utf8CodeUnitCount
        guard offset + count <= bytes.count,
              memcmp(bytes.baseAddress! + offset, word.utf8Start, count) == 0 else { throw error("unexpected character") }
        offset += count
    }

    private mutating func object(depth: Int) throws(JSONSyntaxError) -> JSONObject {
        guard depth <= Self.maximumDepth else { throw error("nested deeper than \(Self.maximumDepth) levels") }
        offset += 1
        var members: [(key: String, value: JSONValue)] = []
        skipWhitespace()
        if current == UInt8(ascii: "}") { offset += 1; return JSONObject(members: members) }
        while true {
            guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let keyOffset = offset
            let key = try string()
            if members.contains(where: { $0.key == key }) {
                throw JSONSyntaxError(offset: keyOffset, reason: "the key \"\(key)\" appears twice")
            }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after a key") }
            offset += 1
            skipWhitespace()
            members.append((key, try value(depth: depth)))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): offset += 1; skipWhitespace()
            case UInt8(ascii: "}"): offset += 1; return JSONObject(members: members)
            default: throw error("expected ',' or '}' in an object")
            }
        }
    }

    private mutating func array(depth: Int) throws(JSONSyntaxError) -> [JSONValue] {
        guard depth <= Self.maximumDepth else { throw error("nested deeper than \(Self.maximumDepth) levels") }
        offset += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") { offset += 1; return elements }
        while true {
            elements.append(try value(depth: depth))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): offset += 1; skipWhitespace()
            case UInt8(ascii: "]"): offset += 1; return elements
            default: throw error("expected ',' or ']' in an array")
            }
        }
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        offset += 1
        let start = offset
        var ascii = true
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
            guard byte >= 0x20 else { throw error("a control character must be escaped in a string") }
            ascii = ascii && byte < 0x80
            offset += 1
        }
        guard current != nil else { throw error("unterminated string") }
        if current == UInt8(ascii: "\"") {
            let unescaped = UnsafeRawBufferPointer(rebasing: bytes[start..<offset])
            offset += 1
            if ascii { return String(decoding: unescaped, as: UTF8.self) }
            guard let string = String(validating: unescaped, as: UTF8.self) else {
                throw JSONSyntaxError(offset: start, reason: "a string is not valid UTF-8")
            }
            return string
        }
        var utf8 = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[start..<offset]))
        while let byte = current, byte != UInt8(ascii: "\"") {
            if byte == UInt8(ascii: "\\") {
                try escape(into: &utf8)
            } else {
                guard byte >= 0x20 else { throw error("a control character must be escaped in a string") }
                utf8.append(byte)
                offset += 1
            }
        }
        guard current != nil else { throw error("unterminated string") }
        offset += 1
        guard let string = String(validating: utf8, as: UTF8.self) else {
            throw JSONSyntaxError(offset: start, reason: "a string is not valid UTF-8")
        }
        return string
    }

    private mutating func escape(into utf8: inout [UInt8]) throws(JSONSyntaxError) {
        offset += 1
        guard let byte = current else { throw error("unterminated string") }
        offset += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(byte)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try hex4())
            if (0xD800...0xDBFF).contains(scalar) {
                guard current == UInt8(ascii: "\\"), offset + 1 < bytes.count, bytes[offset + 1] == UInt8(ascii: "u") else {
                    throw error("a high surrogate must be followed by a low surrogate")
                }
                offset += 2
                let low = UInt32(try hex4())
                guard (0xDC00...0xDFFF).contains(low) else { throw error("a high surrogate must be followed by a low surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw error("a low surrogate without a high one")
            }
            utf8.append(contentsOf: Unicode.UTF8.encode(Unicode.Scalar(scalar)!)!)
        default:
            throw error("invalid escape sequence")
        }
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt16 {
        guard offset + 4 <= bytes.count else { throw error("\\u needs four hex digits") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[offset]
            let nibble: UInt8
            switch byte {
            case 48...57: nibble = byte - 48
            case 97...102: nibble = byte - 87
            case 65...70: nibble = byte - 55
            default: throw error("\\u needs four hex digits")
            }
            value = value << 4 | UInt16(nibble)
            offset += 1
        }
        return value
    }

    private mutating func number() throws(JSONSyntaxError) -> JSONNumber {
        let start = offset
        let negative = current == UInt8(ascii: "-")
        if negative { offset += 1 }
        guard let first = current, (48...57).contains(first) else { throw error("a number needs a digit") }
        var magnitude: UInt64 = 0
        var overflow = false
        if first == 48 {
            offset += 1
            if let next = current, (48...57).contains(next) { throw error("a number must not have a leading zero") }
        } else {
            while let digit = current, (48...57).contains(digit) {
                let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times10.addingReportingOverflow(UInt64(digit - 48))
                overflow = overflow || o1 || o2
                magnitude = sum
                offset += 1
            }
        }
        var integral = true
        if current == UInt8(ascii: ".") {
            integral = false
            offset += 1
            guard let digit = current, (48...57).contains(digit) else { throw error("a fraction needs a digit") }
            while let digit = current, (48...57).contains(digit) { offset += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            integral = false
            offset += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { offset += 1 }
            guard let digit = current, (48...57).contains(digit) else { throw error("an exponent needs a digit") }
            while let digit = current, (48...57).contains(digit) { offset += 1 }
        }
        if integral, !overflow {
            if negative, magnitude <= UInt64(Int64.max) + 1 {
                let value = magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
                return JSONNumber(double: Double(value), integer: value)
            }
            if !negative, magnitude <= UInt64(Int64.max) {
                return JSONNumber(double: Double(magnitude), integer: Int64(magnitude))
            }
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        guard let double = Double(text), double.isFinite else { throw JSONSyntaxError(offset: start, reason: "a number is out of range") }
        return JSONNumber(double: double, integer: Int64(exactly: double))
    }
}
