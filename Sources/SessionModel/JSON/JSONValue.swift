/// A parsed JSON value (RFC 8259). Objects keep their members in order; ingest lines are small
/// flat objects, where a linear lookup beats hashing.
package enum JSONValue: Equatable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

package struct JSONNumber: Equatable {
    package var double: Double
    /// The exact value when the number is integral and fits; `1.0` and `1e3` count as integers.
    package var integer: Int64?
}

package struct JSONObject: Equatable {
    package var members: [(key: String, value: JSONValue)]

    package subscript(key: String) -> JSONValue? {
        for member in members where member.key == key { return member.value }
        return nil
    }

    package var count: Int { members.count }

    package static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.elementsEqual(rhs.members) { $0.key == $1.key && $0.value == $1.value }
    }
}

/// Why a text is not JSON, and at which byte offset.
package struct JSONSyntaxError: Error, Equatable {
    package var offset: Int
    package var reason: String
}
