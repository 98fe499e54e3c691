import EventLog
import Foundation

/// What an ingest reads of the store while it checks its input: inside its own write transaction
/// (``TransactionAppender``), or from the committed store with each stream's version noted
/// (``NotedReads``), for an append through group commit that must find the streams as they were read.
protocol IngestReads {
    func streamMetadata(_ stream: StreamID) throws -> StreamMetadata?
    func storedEvents(of stream: StreamID, withIDs ids: Set<UUID>) throws -> [UUID: RecordedEvent]
    func storedPositions(of stream: StreamID, withIDs ids: Set<UUID>) throws -> [UUID: UInt64]
    func readStream<T>(_ stream: StreamID, from number: UInt64, maxCount: Int, skippingErased: Bool,
                       transform: @escaping @Sendable (RecordedEvent) throws -> T) throws -> [T]
}

extension TransactionAppender: IngestReads {}

/// Reads of the committed store, each stream's version noted the first time it is read, so that the
/// appends built from them can demand that version (``ExpectedVersion/exact(_:)``): if another writer
/// appended to one of those streams since, the append is refused and the ingest checks again.
final class NotedReads: IngestReads {
    private let log: EventLog
    /// Each stream read so far, as it was when first read (nil: it did not exist): its version is the one noted.
    private var metadata: [StreamID: StreamMetadata?] = [:]

    init(log: EventLog) {
        self.log = log
    }

    /// The version every append to `stream` must find: the one noted, or the stream's version now.
    func expectedVersion(of stream: StreamID) throws -> ExpectedVersion {
        let version = try streamMetadata(stream)?.version ?? 0
        return version == 0 ? .noStream : .exact(version)
    }

    /// The stream as first read: a later change makes the append built from it refused, and the ingest checks again.
    func streamMetadata(_ stream: StreamID) throws -> StreamMetadata? {
        if let noted = metadata[stream] { return noted }
        let read = try log.streamMetadata(stream)
        metadata[stream] = .some(read)
        return read
    }

    func storedEvents(of stream: StreamID, withIDs ids: Set<UUID>) throws -> [UUID: RecordedEvent] {
        _ = try streamMetadata(stream)
        return try log.storedEvents(of: stream, withIDs: ids)
    }

    func storedPositions(of stream: StreamID, withIDs ids: Set<UUID>) throws -> [UUID: UInt64] {
        _ = try streamMetadata(stream)
        return try log.storedPositions(of: stream, withIDs: ids)
    }

    func readStream<T>(_ stream: StreamID, from number: UInt64, maxCount: Int, skippingErased: Bool,
                       transform: @escaping @Sendable (RecordedEvent) throws -> T) throws -> [T] {
        _ = try streamMetadata(stream)
        return try log.readStream(stream, from: number, maxCount: maxCount, skippingErased: skippingErased, transform: transform)
    }
}
