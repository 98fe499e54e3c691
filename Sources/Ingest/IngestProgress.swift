import Foundation

/// How far an ingest is, for a progress display: bytes of the input read, checked and appended, of
/// its size when known.
public struct IngestProgress: Sendable {
    public var done: Int
    public var total: Int?
}
