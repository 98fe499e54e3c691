import Foundation

/// Where a session stands in the session list: a value of the list's sort key (by default its start time),
/// then its id's bytes. The order of `sessions`, of exports and of the server's pages.
public struct SessionListKey: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var value: Int64
    public var id: UUID

    public init(value: Int64, id: UUID) {
        self.value = value
        self.id = id
    }

    /// `summary`'s place in start order (a session with no start time first).
    public init(startOf summary: SessionSummary) {
        self.init(summary: summary, sort: .started)
    }

    /// "VALUE.ID", as ``description`` writes it (the server's page cursor).
    public init?(_ text: String) {
        let parts = text.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, let value = Int64(parts[0]), let id = UUID(uuidString: String(parts[1])) else { return nil }
        self.init(value: value, id: id)
    }

    public var description: String { "\(value).\(id.uuidString.lowercased())" }

    public static func < (lhs: SessionListKey, rhs: SessionListKey) -> Bool {
        if lhs.value != rhs.value { return lhs.value < rhs.value }
        return withUnsafeBytes(of: lhs.id.uuid) { left in withUnsafeBytes(of: rhs.id.uuid) { left.lexicographicallyPrecedes($0) } }
    }
}

extension Sequence where Element == SessionSummary {
    /// These sessions in start order (``SessionListKey/init(startOf:)``), each key made once.
    public func sortedByStart() -> [SessionSummary] {
        map { (key: SessionListKey(startOf: $0), summary: $0) }.sorted { $0.key < $1.key }.map(\.summary)
    }
}
