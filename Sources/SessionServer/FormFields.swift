import Foundation
import Hummingbird

/// A request's query as HTML forms send it (`application/x-www-form-urlencoded`): `+` is a space and
/// `%2B` a plus sign. Hummingbird's `queryParameters` decodes percent escapes only, so a browser's
/// "access request 42" would arrive as "access+request+42"; every route reads its query through this.
struct FormFields: Sendable {
    private let pairs: [(name: String, value: String)]

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
}

extension Request {
    /// The query's fields, decoded as a form's.
    var form: FormFields { FormFields(uri.query) }
}
