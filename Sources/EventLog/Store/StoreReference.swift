/// Where a store is and the key that opens it: what an operation needs that opens and closes the store
/// itself, such as one that ends by compacting it (compaction needs the store alone, so no caller's
/// ``EventLog`` may be open on it then).
public struct StoreReference: Sendable {
    /// A store directory, or a `postgresql://` URL.
    public var location: String
    /// The master key.
    public var key: KeySource
    /// How the store is opened.
    public var options: EventLogOptions

    /// The store at `location`, opened with `key`.
    public init(location: String, key: KeySource, options: EventLogOptions = EventLogOptions()) {
        self.location = location
        self.key = key
        self.options = options
    }

    /// Opens the store (``EventLog/open(at:key:options:)``).
    public func open() throws -> EventLog {
        try EventLog.open(at: location, key: key, options: options)
    }

    /// Opens the store, runs `body` with it and closes it, even when `body` throws.
    public func withLog<R>(_ body: (EventLog) async throws -> R) async throws -> R {
        let log = try open()
        do {
            let result = try await body(log)
            try log.close()
            return result
        } catch {
            try? log.close()
            throw error
        }
    }

    /// Compacts the store (``EventLog/compact(at:waitingUpTo:options:)``): no log may be open on it.
    public func compact(waitingUpTo timeout: Duration = .seconds(10)) throws -> CompactionReport {
        try EventLog.compact(at: location, waitingUpTo: timeout, options: options)
    }
}
