import Failures

/// Everything that can go wrong in the event log, with what failed and where.
///
/// Match on ``code``; the optional fields say which stream, position or file it concerns.
public struct EventLogError: CodedError, Sendable {
    /// The kind of failure. New codes may be added; match the ones you handle.
    public typealias Code = ErrorCode<EventLogError>

    /// What kind of failure this is; match on it.
    public var code: Code
    /// One sentence naming what failed and where.
    public var message: String
    /// The stream concerned, when there is one.
    public var stream: StreamID?
    /// The global position of the record concerned, when there is one.
    public var position: UInt64?
    /// What a refused append expected of its stream.
    public var expectedVersion: ExpectedVersion?
    /// The stream's version when an append was refused.
    public var actualVersion: UInt64?
    /// The file or directory concerned, when there is one.
    public var path: String?

    /// The storage engine's or the system's error behind this one, when there was one.
    public var underlying: (any Error)?

    package init(_ code: Code, _ message: String, stream: StreamID? = nil, position: UInt64? = nil, path: String? = nil,
         underlying: (any Error)? = nil) {
        self.code = code
        self.underlying = underlying
        self.message = message
        self.stream = stream
        self.position = position
        self.path = path
    }

    static func integrity(_ position: UInt64, _ reason: String) -> EventLogError {
        EventLogError(.integrity, "record at position \(position) \(reason)", position: position)
    }
}

extension ErrorCode where Domain == EventLogError {
    /// The master key does not open this store.
    public static let wrongKey = Self("wrong key", .key)
    /// The key file is missing, unreadable, of the wrong size, or readable by others.
    public static let keyFileUnusable = Self("key file unusable", .key)
    /// The path is not a store, or the store's files are damaged beyond opening.
    public static let storeUnusable = Self("store unusable", .invalidData)
    /// There is no store at the path (create one first).
    public static let storeMissing = Self("store missing", .invalidData)
    /// The store's directory or files may not be read and written by this user.
    public static let permissionDenied = Self("permission denied", .key)
    /// The store was written by a newer or unknown format version.
    public static let unsupportedFormat = Self("unsupported format", .invalidData)
    /// The store was written by an older format version: ``EventLog/migrate(at:key:options:)`` upgrades it.
    public static let migrationRequired = Self("migration required", .invalidData)
    /// The thing to create exists already.
    public static let alreadyExists = Self("already exists", .conflict)
    /// The stream's version is not what the append expected.
    public static let wrongExpectedVersion = Self("wrong expected version", .conflict)
    /// A record is damaged, moved, swapped or foreign; `position` names it.
    public static let integrity = Self("integrity", .integrity)
    /// A checkpoint someone kept is not signed with this log's key (altered, or another store's).
    public static let foreignCheckpoint = Self("foreign checkpoint", .inconsistent)
    /// The data key of a record has been destroyed (the data was erased).
    public static let keyDestroyed = Self("key destroyed", .notFound)
    /// An event or argument passed in is not acceptable.
    public static let invalidArgument = Self("invalid argument", .invalidData)
    /// The store is closed.
    public static let closed = Self("closed", .unexpected)
    /// The store is open elsewhere and the operation needs it alone (compaction).
    public static let storeBusy = Self("store busy", .busy)
    /// The store's database server cannot be reached (PostgreSQL: down, or the network is); try again.
    public static let unavailable = Self("unavailable", .unavailable)
    /// One transaction wrote more than the store has room for while it runs (LMDB's map:
    /// ``EventLogOptions/mapHeadroom``); nothing of it was stored.
    public static let tooLarge = Self("too large", .invalidData)
    /// The storage engine failed (disk full, I/O error, …).
    public static let storage = Self("storage", .unexpected)
}
