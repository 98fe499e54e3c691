import Foundation

/// How an event log is opened.
public struct EventLogOptions: Sendable {
    /// Sync every commit to disk before acknowledging it (the default; on PostgreSQL, COMMIT with
    /// `synchronous_commit` on, which also waits for a synchronous standby). Turn off only for bulk
    /// loads that can be redone: an append may then be lost on a crash, though the store stays
    /// consistent (on PostgreSQL, commits use `synchronous_commit = off`). ``EventLog/close()`` syncs
    /// in either case.
    public var durable = true
    /// On LMDB, the room the store's memory map keeps beyond the data file, in bytes (64 GiB): the
    /// most one ``EventLog/appendInOneTransaction(_:)`` may write (a larger one is refused with
    /// ``EventLogError/Code/tooLarge``, nothing stored). The map is address space, not memory or
    /// disk, so LMDB's advice is to make it large; the group commit's small transactions grow it
    /// past this by themselves. Each open of the store sizes it ahead again.
    public var mapHeadroom = 64 << 30
    /// The Argon2id cost when a store is created with a passphrase.
    public var passphraseCost = PassphraseCost.moderate
    /// The most events one transaction takes from the queue of appends.
    public var maximumBatchEvents = 16_384
    /// The most body bytes (event types and payloads, before compression) that consecutive events of one stream
    /// appended together are sealed with as one block (docs/FORMAT.md §5.8), so that reading them opens one
    /// ciphertext, not one per event; 0 seals every event on its own. A larger event is always sealed alone.
    /// Reading one event of a block decrypts and decompresses the whole block.
    public var blockBodyBytes = 16_384
    /// The store's clock for recorded-at times, in milliseconds since 1970.
    public var clock: @Sendable () -> Int64 = Self.systemClock
    /// The storage backends besides LMDB (a directory) and memory (`memory:NAME`) that a location may
    /// name: a module that adds one hands it here (`EventLogOptions().withPostgreSQL()`), so that a
    /// program links only the backends it opens and none is found in process-wide state.
    package var backends: [any StorageBackend] = []

    /// The system's time in milliseconds since 1970: the default ``clock``, and the time of a command
    /// that has no store open yet.
    public static let systemClock: @Sendable () -> Int64 = { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    /// The defaults: durable commits, 64 GiB of room in the map.
    public init() {}
}
