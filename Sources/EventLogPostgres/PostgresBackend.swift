import EventLog
import Foundation

/// PostgreSQL as a store's storage: a `postgresql://` or `postgres://` location (libpq's syntax,
/// multi-host failover lists included; docs/SCALING.md). A module of its own, so that only a program
/// that uses PostgreSQL links libpq: such a program opens its stores with `EventLogOptions().withPostgreSQL()`.
extension EventLogOptions {
    /// These options, with `postgresql://` and `postgres://` locations openable.
    public func withPostgreSQL() -> EventLogOptions {
        var options = self
        if !options.backends.contains(where: { $0 is PostgresStorageBackend }) { options.backends.append(PostgresStorageBackend()) }
        return options
    }
}

struct PostgresStorageBackend: StorageBackend {
    func serves(_ location: String) -> Bool {
        let lowered = location.lowercased()
        return lowered.hasPrefix("postgresql://") || lowered.hasPrefix("postgres://")
    }

    func open(_ url: String, _ mode: OpenMode, options: EventLogOptions) throws -> any StorageEnvironment {
        let lock: PostgresStorage.OpenLock = if case .exclusive(let timeout) = mode { .exclusive(timeout) } else { .shared }
        return try PostgresStorage.connect(url: url, createTables: mode.createsTables, openLock: lock, durable: options.durable)
    }
}

extension PostgresError: StorageFailure {
    var engineError: EventLogError {
        if isConnectionLoss {
            return EventLogError(.unavailable, "lost the connection to the PostgreSQL server: \(self)", underlying: self)
        }
        if isReadOnlyRefusal {
            return EventLogError(.permissionDenied, "the PostgreSQL server refuses writes (a hot standby serves reads only); nothing was written. "
                                 + "Write through the primary: a multi-host URL with target_session_attrs=read-write finds it: \(self)",
                                 underlying: self)
        }
        return EventLogError(.storage, "storage failure: \(self)", underlying: self)
    }
}

extension PostgresStorage: StorageEnvironment {
    func withSnapshot<R>(_ body: (any StorageTransaction) throws -> R) throws -> R {
        try read(body)
    }

    func withWriteTransaction<R>(readingAhead reads: KeyReads, rerunnable: Bool, _ body: (any StorageTransaction) throws -> R) throws -> R {
        try write(readingAhead: reads, body)
    }

    /// A fold costs a row per run (one per append when streams interleave, each about 8 µs in the
    /// upsert), so a long tail saves nothing and makes one commit in many slow: with 2,048, every 32nd
    /// commit of 64 interleaved appenders took 16–32 ms.
    var maximumIndexTail: UInt64 { 256 }

    func hasDatabase(_ name: String) -> Bool { hasTable(name) }

    func isReadOnlyReplica() throws -> Bool { try isInRecovery() }

    func sizes() throws -> StorageSizes { StorageSizes(bytes: try bytesOnServer()) }

    /// Announces other processes' commits through LISTEN/NOTIFY.
    func commitListener(advancing signal: CommitSignal) throws -> (any CommitListener)? {
        try listenForCommits(advancing: signal)
    }

    /// `VACUUM FULL`.
    func compactInPlace() throws -> (before: UInt64, after: UInt64) {
        let before = try bytesOnServer()
        try vacuumFull()
        return (before, try bytesOnServer())
    }
}

extension PostgresCommitListener: CommitListener {}
