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
    /// Each stream read so far, with the number of events it held when first read.
    private var versions: [StreamID: UInt64] = [:]

    init(log: EventLog) {
        self.log = log
    }

    /// The version every append to `stream` must find: the one noted, or the stream's version now.
    func expectedVersion(of stream: StreamID) throws -> ExpectedVersion {
        let version = try note(stream)
        return version == 0 ? .noStream : .exact(version)
    }

    @discardableResult
    private func note(_ stream: StreamID) throws -> UInt64 {
        if let version = versions[stream] { return version }
        let version = try log.streamMetadata(stream)?.version ?? 0
        versions[stream] = version
        return version
    }

    func streamMetadata(_ stream: StreamID) throws -> StreamMetadata? {
        let metadata = try log.streamMetadata(stream)
        if versions[stream] == nil { versions[stream] = metadata?.version ?? 0 }
        return metadata
    }

    func storedEvents(of stream: StreamID, withIDs ids: Set<UUID>) throws -> [UUID: RecordedEvent] {
        try note(stream)
        return try log.storedEvents(of: stream, withIDs: ids)
    }

    func storedPositions(of stream: StreamID, withIDs ids: Set<UUID>) throws -> [UUID: UInt64] {
        try note(stream)
        return try log.storedPositions(of: stream, withIDs: ids)
    }

    func readStream<T>(_ stream: StreamID, from number: UInt64, maxCount: Int, skippingErased: Bool,
                       transform: @escaping @Sendable (RecordedEvent) throws -> T) throws -> [T] {
        try note(stream)
        return try log.readStream(stream, from: number, maxCount: maxCount, skippingErased: skippingErased, transform: transform)
    }
}
