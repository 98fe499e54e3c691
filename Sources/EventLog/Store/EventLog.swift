import Foundation

/// An encrypted, compressed, append-only event log in one LMDB environment (a directory), or in a
/// PostgreSQL database when the store is given as a `postgresql://` URL (docs/FORMAT.md "PostgreSQL").
///
/// Events are appended to streams, each identified by a ``StreamID``, and get a global position
/// in one total order. Appends are atomic per call, checked against an ``ExpectedVersion``, and
/// acknowledged only once durable; concurrent appends share transactions and syncs (group commit).
///
/// ```swift
/// try MasterKeyFile.create(at: "sessions.key")
/// let log = try EventLog.create(at: "sessions.store", key: .keyFile("sessions.key"))
/// let stream = StreamID()
/// try await log.append([ProposedEvent(type: "note", data: Array("hello".utf8))], to: stream, expectedVersion: .noStream)
/// let events = try log.readStream(stream)
/// ```
public final class EventLog: Sendable {
    /// The store directory, or its PostgreSQL URL with any password replaced by `***`.
    public let directory: String
    /// The store's random id, bound into every record.
    public let storeID: UUID

    /// Now, in milliseconds since 1970, by the clock that stamps the store's records: the time commands
    /// and the server give what they record (an access, a hold, a token).
    public var now: Int64 { clock() }

    let environment: StoreEnvironment
    let keyHierarchy: KeyHierarchy
    let opener: RecordOpener
    let dictionaries: DictionarySet
    let commits: CommitSignal
    let externalCommits: ExternalCommits
    private let appends: AppendQueue
    private let durable: Bool
    /// The room a long transaction has in LMDB's map (``EventLogOptions/mapHeadroom``).
    private let mapHeadroom: Int
    /// The store's clock (``EventLogOptions/clock``).
    private let clock: @Sendable () -> Int64
    /// The backends besides the built-in ones this log was opened with (``EventLogOptions/backends``).
    let backends: [any StorageBackend]

    private init(directory: String, environment: StoreEnvironment, master: SecureBytes, options: EventLogOptions) throws {
        let storeIDBytes = try environment.read { txn in
            try StoreOpening.checkFormat(in: txn)
            return try StoreOpening.storeID(in: txn)
        }
        if let missing = StoreLayout.all.first(where: { !environment.hasDatabase($0) }) {
            throw EventLogError(.storeUnusable, "the store at \(directory) lacks its \(missing) database", path: directory)
        }
        let hierarchy = try environment.read { txn in
            try StoreOpening.checkKey(KeyHierarchy(master: master), storeID: storeIDBytes, in: txn)
            return try KeyHierarchy.load(master: master, storeID: storeIDBytes, in: txn)
        }
        let keys = KeyRing(hierarchy: hierarchy, storeID: storeIDBytes)
        let dictionaries = DictionarySet(metadataKey: hierarchy.storeMetadata, storeID: storeIDBytes)
        try environment.read { txn in try dictionaries.load(in: txn) }
        let writer = try BatchWriter(environment: environment, keys: keys, dictionaries: dictionaries,
                                     storeID: storeIDBytes, clock: options.clock, blockBodyBytes: options.blockBodyBytes)
        self.directory = StoreLocation.redacted(directory)
        self.storeID = storeIDBytes.withUnsafeBytes { UUID(bytes: $0) }
        self.environment = environment
        self.keyHierarchy = hierarchy
        self.dictionaries = dictionaries
        self.opener = RecordOpener(storeID: storeIDBytes, keys: keys, dictionaries: dictionaries,
                                   decompressors: DecompressorPool())
        self.commits = CommitSignal(committedCount: writer.nextPosition)
        self.externalCommits = ExternalCommits(environment: environment, signal: commits)
        self.appends = AppendQueue(writer: writer, commits: commits, maximumBatchEvents: options.maximumBatchEvents)
        self.durable = options.durable
        self.mapHeadroom = options.mapHeadroom
        self.clock = options.clock
        self.backends = options.backends
    }

    deinit {
        externalCommits.stop()
        appends.stop()
        if !durable { try? environment.sync() }
    }

    /// Creates a new store in `directory`, which must not exist or be empty; or, given a `postgresql://`
    /// URL, in that database, which must not hold a store.
    ///
    /// With ``KeySource/keyFile(_:)`` the key file must exist already (see ``MasterKeyFile/create(at:)``);
    /// with ``KeySource/passphrase(_:)`` a fresh salt is kept in the store. Given `subjectKey` (another store's,
    /// ``exportSubjectKey()``), the new store hashes subjects as that one does, so that sessions moved between them
    /// keep their subjects (`sessionstore push`).
    public static func create(at directory: String, key: KeySource, subjectKey: SubjectKey? = nil,
                              options: EventLogOptions = EventLogOptions()) throws -> EventLog {
        do {
            return try createStore(at: directory, key: key, subjectKey: subjectKey, options: options)
        } catch {
            throw EventLogError.storage(error)
        }
    }

    private static func createStore(at location: String, key: KeySource, subjectKey: SubjectKey?, options: EventLogOptions) throws -> EventLog {
        var masterFromFile: SecureBytes?
        if case .keyFile(let path) = key {
            try StoreOpening.refuseKeyInside(location, of: try StorageBackends.backend(for: location, among: options.backends), keyPath: path)
            masterFromFile = try MasterKeyFile.read(at: path)
        }
        let (environment, master) = try StoreEnvironment.create(location, options: options) { txn in
            try StoreOpening.initialise(in: txn, keySource: key, masterFromFile: masterFromFile, subjectKey: subjectKey, options: options)
        }
        return try EventLog(directory: location, environment: environment, master: master, options: options)
    }

    /// Opens an existing store; fails at once with ``EventLogError/Code/wrongKey`` for the wrong key.
    public static func open(at directory: String, key: KeySource, options: EventLogOptions = EventLogOptions()) throws -> EventLog {
        do {
            return try openStore(at: directory, key: key, options: options)
        } catch {
            throw EventLogError.storage(error)
        }
    }

    private static func openStore(at directory: String, key: KeySource, options: EventLogOptions) throws -> EventLog {
        let environment = try StoreEnvironment.open(directory, .existing, options: options)
        let master = try environment.read { txn in try StoreOpening.masterKey(for: key, directory: directory, of: environment.backend, in: txn) }
        return try EventLog(directory: directory, environment: environment, master: master, options: options)
    }

    /// Appends `events` to `stream` atomically, if the stream is at `expectedVersion`.
    ///
    /// Returns once the events are durable. A new stream gets a data key of its own, or the
    /// store's audit key when `keyScope` is ``KeyScope/audit``; `keyScope` is ignored for a stream
    /// that exists.
    ///
    /// With `deduplicate`, events whose ids the stream already holds are left out (counted in
    /// ``AppendResult/duplicates``), so that a client may safely send the same events again; when
    /// every event is a duplicate the append succeeds without writing, whatever `expectedVersion`
    /// says. The check is one lookup per event in the index of event ids (and a read of the unindexed
    /// tail's clear headers), so its cost does not grow with the stream.
    /// - Throws: ``EventLogError`` with ``EventLogError/Code/wrongExpectedVersion`` (carrying the
    ///   stream, expected and actual versions), ``EventLogError/Code/invalidArgument`` for an event
    ///   that cannot be stored, ``EventLogError/Code/keyDestroyed`` for an erased stream.
    @discardableResult
    public func append(_ events: [ProposedEvent], to stream: StreamID, expectedVersion: ExpectedVersion = .any,
                       keyScope: KeyScope = .stream, deduplicate: Bool = false) async throws -> AppendResult {
        let results = try await append([StreamAppend(stream: stream, events: events, expectedVersion: expectedVersion,
                                                     keyScope: keyScope, deduplicate: deduplicate)])
        return results[0]
    }

    /// Appends to several streams atomically: every part is appended, in one transaction, or (when
    /// one is refused) none is, and the error is that part's. Returns one result per part.
    ///
    /// ```swift
    /// try await log.append([
    ///     StreamAppend(stream: session, events: sessionEvents, deduplicate: true),
    ///     StreamAppend(stream: consentTrail, events: consentEvents, keyScope: .audit, deduplicate: true),
    /// ])
    /// ```
    @discardableResult
    public func append(_ parts: [StreamAppend]) async throws -> [AppendResult] {
        try Self.checkStorable(parts)
        guard !parts.isEmpty else { return [] }
        return try await appends.submit(parts)
    }

    /// Appends whatever `body` appends, group after group, in one transaction: all of it becomes
    /// visible and durable together when `body` returns, or (when `body` or an append throws) none of
    /// it does. Records are sealed and written as they come, so memory holds one group at a time: this
    /// is how a file far larger than memory is ingested all or nothing.
    ///
    /// `body` runs once, on the log's writer thread while it holds the store's write lock: other
    /// appends, from this process and others, wait until it returns. On LMDB it may write up to
    /// ``EventLogOptions/mapHeadroom`` (64 GiB by default; the map is made that roomy before it starts,
    /// since it cannot grow during a transaction); a transaction that writes more is refused with
    /// ``EventLogError/Code/tooLarge`` and nothing of it is stored.
    ///
    /// ```swift
    /// let appended = try await log.appendInOneTransaction { appender in
    ///     var count = 0
    ///     for batch in try reader.batches() { count += try appender.append(batch).count }
    ///     return count
    /// }
    /// ```
    public func appendInOneTransaction<T: Sendable>(_ body: @escaping @Sendable (TransactionAppender) throws -> T) async throws -> T {
        do { try environment.reserve(mapHeadroom) } catch { throw EventLogError.storage(error) }
        return try await appends.submitTransaction { [self] appender in
            appender.log = self
            return try body(appender)
        }
    }

    /// Throws for an event that cannot be stored: a type of 0 or over 255 bytes, or too much data.
    static func checkStorable(_ parts: [StreamAppend]) throws {
        for part in parts {
            for (index, event) in part.events.enumerated() {
                let typeCount = event.type.utf8.count
                guard (1...255).contains(typeCount) else {
                    throw EventLogError(.invalidArgument,
                                        "event \(index) of the append to stream \(part.stream) has a type of \(typeCount) bytes; 1 to 255 are allowed",
                                        stream: part.stream)
                }
                guard event.data.count <= ProposedEvent.maximumDataCount else {
                    throw EventLogError(.invalidArgument,
                                        "event \(index) of the append to stream \(part.stream) has \(event.data.count) bytes of data; at most \(ProposedEvent.maximumDataCount) are allowed",
                                        stream: part.stream)
                }
            }
        }
    }

    /// Finishes queued appends, stops accepting new ones and flushes the store to disk.
    /// Reads keep working until the log is released.
    public func close() throws {
        appends.stop()
        try environment.sync()
    }

    /// Installs a compression dictionary (see ``trainDictionary(samples:capacity:)``) that new
    /// small records use from now on. Returns its id. Records written before keep theirs.
    ///
    /// Train dictionaries on representative but non-personal samples: a dictionary is kept as long
    /// as the store, so words in it would outlive the erasure of the events they came from.
    @discardableResult
    public func installDictionary(_ dictionary: [UInt8]) throws -> UInt16 {
        try writing { txn in try dictionaries.install(dictionary, in: txn) }
    }

    /// Trains a zstd dictionary of at most `capacity` bytes from sample events (a few thousand
    /// representative ones are plenty).
    public static func trainDictionary(samples: [ProposedEvent], capacity: Int = 16 << 10) throws -> [UInt8] {
        try CompressionDictionary.train(samples: samples.map(RecordBody.encode), capacity: capacity)
    }
}

extension EventLog {
    /// A read transaction whose storage failures reach the caller as ``EventLogError``; errors
    /// thrown by `body` itself pass through unchanged.
    func reading<R>(_ body: (StoreTransaction) throws -> R) throws -> R {
        do {
            return try environment.read(body)
        } catch where StoreEnvironment.isStorageError(error) {
            throw EventLogError.storage(error)
        }
    }

    /// A write transaction whose storage failures reach the caller as ``EventLogError``; errors
    /// thrown by `body` itself pass through unchanged (and the transaction is aborted).
    func writing<R>(_ body: (StoreTransaction) throws -> R) throws -> R {
        do {
            return try environment.write(body)
        } catch where StoreEnvironment.isStorageError(error) {
            throw EventLogError.storage(error)
        }
    }
}
