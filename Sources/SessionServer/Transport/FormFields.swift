import Foundation
import Hummingbird
import Output
import TimeCoding

/// A request's query as HTML forms send it (`application/x-www-form-urlencoded`): `+` is a space and
/// `%2B` a plus sign. Hummingbird's `queryParameters` decodes percent escapes only, so a browser's
/// "access request 42" would arrive as "access+request+42"; every route reads its query through this.
///
/// The typed accessors answer a value that is not what docs/openapi.yaml says (a parameter given twice,
/// a boolean that is not `true` or `false`, an empty number or time) with a 400 problem naming it.
struct FormFields: Sendable {
    private let pairs: [(name: String, value: String)]

    private init(pairs: [(name: String, value: String)]) {
        self.pairs = pairs
    }

    init(_ query: String?) {
        pairs = (query ?? "").split(separator: "&").map { part in
            let halves = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (Self.decode(halves[0]), halves.count > 1 ? Self.decode(halves[1]) : "")
        }
    }

    private static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// The first value of `name`.
    func get(_ name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// Every value of `name`, in order.
    func getAll(_ name: String) -> [String] {
        pairs.filter { $0.name == name }.map(\.value)
    }

    /// The first value of `name`, nil when absent or empty (a form's unfilled field).
    func nonEmpty(_ name: String) -> String? {
        get(name).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The fields without the empty ones: what a browser's form sends for the fields left unfilled.
    func withoutEmptyValues() -> FormFields {
        FormFields(pairs: pairs.filter { !$0.value.isEmpty })
    }

    /// The value of `name`, nil when absent; a parameter that takes one value may not be given twice.
    func single(_ name: String) throws -> String? {
        let values = getAll(name)
        guard values.count <= 1 else { throw Problem.badRequest("\(name) is given \(values.count) times; give it once") }
        return values.first
    }

    /// ``single(_:)``, nil also when empty: a free text (a subject, a purpose) that may be left out.
    func text(_ name: String) throws -> String? {
        try single(name).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `true` or `false`, nil when absent.
    func boolean(_ name: String) throws -> Bool? {
        guard let value = try single(name) else { return nil }
        switch value {
        case "true": return true
        case "false": return false
        default: throw Problem.badRequest("\(name) \"\(value)\" is not true or false")
        }
    }

    /// An RFC 3339 date-time (any offset) as milliseconds since 1970, nil when absent.
    func time(_ name: String) throws -> Int64? {
        guard let value = try single(name) else { return nil }
        guard let time = RFC3339.milliseconds(value, anyOffset: true) else {
            throw Problem.badRequest("\(name) \"\(value)\" is not an RFC 3339 date-time (2026-11-21T10:00:00Z)")
        }
        return time
    }

    /// One of `T`'s raw values, nil when absent.
    func choice<T: RawRepresentable & CaseIterable>(_ name: String, _ type: T.Type) throws -> T? where T.RawValue == String {
        guard let value = try single(name) else { return nil }
        guard let choice = T(rawValue: value) else {
            throw Problem.badRequest("\(name) \"\(value)\" is not one of " + T.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return choice
    }
}

extension Request {
    /// The query's fields, decoded as a form's.
    var form: FormFields { FormFields(uri.query) }
}

extension Problem {
    /// A log position or an event number: a whole number from 0 to 2^63 - 1 (docs/openapi.yaml), or a 400 naming `name`.
    static func position(_ text: String, _ name: String) throws -> UInt64 {
        guard let value = UInt64(text), value <= UInt64(Int64.max) else {
            throw Problem.badRequest("\(name) \(text) is not a whole number from 0 to \(Int64.max)")
        }
        return value
    }
}
