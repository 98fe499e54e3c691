import Output

/// A violation `audit check` found.
public struct ViolationRow: OutputRow {
    public static let columns = ["rule", "session", "position", "occurred_at", "detail"]

    public var violation: Violation

    public init(violation: Violation) {
        self.violation = violation
    }

    public func write(to fields: inout Fields) {
        fields.field("rule", violation.rule.rawValue)
        fields.field("session", id: violation.session)
        fields.field("position", violation.position)
        fields.field("occurred_at", time: violation.occurredAt)
        fields.field("detail", violation.detail)
    }
}
