import Foundation
import TimeCoding

/// Typed access to one NDJSON line's fields, collecting a problem for each field that is missing,
/// of the wrong type or out of range, and for each field the event type does not have.
package struct JSONFields {
    package let object: JSONObject
    package let line: Int
    package private(set) var problems: [IngestProblem] = []
    /// The names asked for; only consulted when the line holds more fields than were found.
    private var asked: [String] = []
    private var found = 0

    package init(_ object: JSONObject, line: Int) {
        self.object = object
        self.line = line
    }

    package mutating func problem(_ field: String?, _ reason: String) {
        problems.append(IngestProblem(line: line, field: field, reason: reason))
    }

    /// Reports every field that was not asked for.
    package mutating func rejectUnknownFields() {
        guard found < object.count else { return }
        let known = Set(asked)
        for field in object.members.map(\.key).sorted() where !known.contains(field) {
            problem(field, "is not a field of this event type")
        }
    }

    private mutating func value(_ field: String, required: Bool) -> JSONValue? {
        asked.append(field)
        guard let value = object[field] else {
            if required { problem(field, "is required") }
            return nil
        }
        found += 1
        if value == .null {
            if required { problem(field, "is required") }
            return nil
        }
        return value
    }

    package mutating func string(_ field: String, required: Bool = true, nonEmpty: Bool = true, maxBytes: Int = 1 << 20) -> String? {
        guard let raw = value(field, required: required) else { return nil }
        guard case .string(let string) = raw else {
            problem(field, "must be a string")
            return nil
        }
        if nonEmpty, string.isEmpty { problem(field, "must not be empty"); return nil }
        if string.utf8.count > maxBytes { problem(field, "is longer than \(maxBytes) bytes"); return nil }
        return string
    }

    /// A string, or an integer given as a number (segment ids come both ways).
    package mutating func identifier(_ field: String) -> String? {
        guard let raw = value(field, required: true) else { return nil }
        if case .string(let string) = raw, !string.isEmpty { return string }
        if case .number(let number) = raw, let integer = number.integer { return String(integer) }
        problem(field, "must be a non-empty string or an integer")
        return nil
    }

    package mutating func integer(_ field: String, in range: ClosedRange<Int64>, required: Bool = true) -> Int64? {
        guard let raw = value(field, required: required) else { return nil }
        guard case .number(let number) = raw, let integer = number.integer else {
            problem(field, "must be an integer")
            return nil
        }
        guard range.contains(integer) else {
            problem(field, "must be between \(range.lowerBound) and \(range.upperBound), not \(integer)")
            return nil
        }
        return integer
    }

    package mutating func milliseconds(_ field: String) -> UInt64? {
        integer(field, in: 0...Int64(Int64.max / 2)).map(UInt64.init)
    }

    package mutating func number(_ field: String, in range: ClosedRange<Double>, required: Bool = false) -> Double? {
        guard let raw = value(field, required: required) else { return nil }
        guard case .number(let number) = raw else {
            problem(field, "must be a number")
            return nil
        }
        guard range.contains(number.double) else {
            problem(field, "must be between \(range.lowerBound) and \(range.upperBound), not \(number.double)")
            return nil
        }
        return number.double
    }

    package mutating func uuid(_ field: String, required: Bool) -> UUID? {
        guard let raw = value(field, required: required) else { return nil }
        guard case .string(let string) = raw, let uuid = Self.parseUUID(string) else {
            problem(field, "must be a UUID such as 7d444840-9dc0-11d1-b245-5ffdce74fad2")
            return nil
        }
        return uuid
    }

    package mutating func timestamp(_ field: String, required: Bool = true) -> Int64? {
        guard let raw = value(field, required: required) else { return nil }
        guard case .string(let string) = raw, let milliseconds = RFC3339.milliseconds(string) else {
            problem(field, "must be an RFC 3339 UTC time such as 2026-11-21T10:00:00.250Z")
            return nil
        }
        return milliseconds
    }

    /// An object of string members (a session's labels), each name once.
    package mutating func stringMap(_ field: String) -> [String: String]? {
        guard let raw = value(field, required: false) else { return nil }
        guard case .object(let object) = raw else {
            problem(field, "must be an object of strings")
            return nil
        }
        var map: [String: String] = [:]
        for (name, member) in object.members {
            guard case .string(let value) = member else {
                problem(field, "member \"\(name)\" must be a string")
                return nil
            }
            guard map.updateValue(value, forKey: name) == nil else {
                problem(field, "names \"\(name)\" twice")
                return nil
            }
        }
        return map
    }

    package mutating func array(_ field: String) -> [JSONValue]? {
        guard let raw = value(field, required: false) else { return nil }
        guard case .array(let array) = raw else {
            problem(field, "must be an array")
            return nil
        }
        return array
    }

    /// Parses `8-4-4-4-12` hex digits (either case) without Foundation's scanf-based parser.
    package static func parseUUID(_ string: String) -> UUID? {
        var bytes = [UInt8](repeating: 0, count: 16)
        var count = 0
        var high: UInt8?
        var position = 0
        for byte in string.utf8 {
            defer { position += 1 }
            if position == 8 || position == 13 || position == 18 || position == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            let nibble: UInt8
            switch byte {
            case 48...57: nibble = byte - 48
            case 97...102: nibble = byte - 87
            case 65...70: nibble = byte - 55
            default: return nil
            }
            guard count < 16 else { return nil }
            if let first = high {
                bytes[count] = first << 4 | nibble
                count += 1
                high = nil
            } else {
                high = nibble
            }
        }
        guard position == 36, count == 16 else { return nil }
        return try? UUID(wire: bytes, field: 0)
    }
}
