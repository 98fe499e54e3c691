import Foundation

/// Rows of the session list a catch-up committed: what folding the events from `from` to `through`
/// changed, for whoever keeps a copy of the list (``ProjectionRunner/catchUp(progress:sessionRows:)``).
public struct SessionRowsWritten: Sendable {
    /// The list's checkpoint the rows were folded from.
    public var from: UInt64
    /// The checkpoint written with them.
    public var through: UInt64
    /// Every session whose row was written, as written.
    public var rows: [UUID: SessionSummary]
}
