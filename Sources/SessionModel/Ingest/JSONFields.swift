import Foundation

/// Typed access to one NDJSON line's fields, collecting a problem for each field that is missing,
/// of the wrong type or out of range, and for each field the event type does not have.
struct JSONFields {
    let object: [String: Any]
    let line: Int
    private(set) var problems: [IngestProblem] = []
    private var used: Set<String> = []

    init(_ object: [String: Any], line: Int) {
        self.object = object
        self.line = line
    }

    mutating func problem(_ field: String?, _ reason: String) {
        problems.append(IngestProblem(line: line, field: field, reason: reason))
    }

    /// Reports every field that was not asked for.
    mutating func rejectUnknownFields() {
        for field in object.keys.sorted() where !used.contains(field) {
            problem(field, "is not a field of this event type")
        }
    }

    private mutating func value(_ field: String, required: Bool) -> Any? {
        used.insert(field)
        guard let value = object[field], !(value is NSNull) else {
            if required { problem(field, "is required") }
            return nil
        }
        return value
    }

    mutating func string(_ field: String, required: Bool = true, nonEmpty: Bool = true, maxBytes: Int = 1 << 20) -> String? {
        guard let raw = value(field, required: required) else { return nil }
        guard let string = raw as? String else {
            problem(field, "must be a string")
            return nil
        }
        if nonEmpty, string.isEmpty { problem(field, "must not be empty"); return nil }
        if string.utf8.count > maxBytes { problem(field, "is longer than \(maxBytes) bytes"); return nil }
        return string
    }

    /// A string, or an integer given as a number (segment ids come both ways).
    mutating func identifier(_ field: String) -> String? {
        guard let raw = value(field, required: true) else { return nil }
        if let string = raw as? String, !string.isEmpty { return string }
        if let number = raw as? NSNumber, !Self.isBoolean(number), let integer = Int64(exactly: number.doubleValue) {
            return String(integer)
        }
        problem(field, "must be a non-empty string or an integer")
        return nil
    }

    mutating func integer(_ field: String, in range: ClosedRange<Int64>, required: Bool = true) -> Int64? {
        guard let raw = value(field, required: required) else { return nil }
        guard let number = raw as? NSNumber, !Self.isBoolean(number), let integer = Int64(exactly: number.doubleValue) else {
            problem(field, "must be an integer")
            return nil
        }
        guard range.contains(integer) else {
            problem(field, "must be between \(range.lowerBound) and \(range.upperBound), not \(integer)")
            return nil
        }
        return integer
    }

    mutating func milliseconds(_ field: String) -> UInt64? {
        integer(field, in: 0...Int64(Int64.max / 2)).map(UInt64.init)
    }

    mutating func number(_ field: String, in range: ClosedRange<Double>, required: Bool = false) -> Double? {
        guard let raw = value(field, required: required) else { return nil }
        guard let number = raw as? NSNumber, !Self.isBoolean(number), number.doubleValue.isFinite else {
            problem(field, "must be a number")
            return nil
        }
        guard range.contains(number.doubleValue) else {
            problem(field, "must be between \(range.lowerBound) and \(range.upperBound), not \(number.doubleValue)")
            return nil
        }
        return number.doubleValue
    }

    mutating func uuid(_ field: String, required: Bool) -> UUID? {
        guard let raw = value(field, required: required) else { return nil }
        guard let string = raw as? String, let uuid = UUID(uuidString: string) else {
            problem(field, "must be a UUID such as 7d444840-9dc0-11d1-b245-5ffdce74fad2")
            return nil
        }
        return uuid
    }

    mutating func timestamp(_ field: String) -> Int64? {
        guard let raw = value(field, required: true) else { return nil }
        guard let string = raw as? String, let milliseconds = RFC3339.milliseconds(string) else {
            problem(field, "must be an RFC 3339 UTC time such as 2026-11-21T10:00:00.250Z")
            return nil
        }
        return milliseconds
    }

    mutating func array(_ field: String) -> [Any]? {
        guard let raw = value(field, required: false) else { return nil }
        guard let array = raw as? [Any] else {
            problem(field, "must be an array")
            return nil
        }
        return array
    }

    /// JSONSerialization gives booleans as NSNumber too (type "c", which no JSON number gets);
    /// they are not numbers here.
    private static func isBoolean(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c"
    }
}
