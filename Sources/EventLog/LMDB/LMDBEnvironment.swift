internal import CLMDB
import Foundation

/// One open LMDB environment (a store directory) and the named databases in it.
///
/// Transactions are lent to closures and never outlive them. Every transaction holds the
/// ``ResizeLock`` shared, so that the map can grow between transactions.
///
/// The map is sized ahead, as LMDB advises (as large as the data may grow): it is address space, not
/// memory or disk, and each open makes it the data file's size plus `mapHeadroom`. A write that still
/// fills it is aborted; the engine's own writes grow the map and run again, a caller's long
/// transaction (``write(rerunnable:_:)`` with `rerunnable` false) is refused instead, so that no
/// caller's code ever runs twice.
final class LMDBEnvironment: @unchecked Sendable {
    // @unchecked: the environment is opened with MDB_NOTLS, which makes read transactions usable
    // from any thread; write transactions are serialised by LMDB itself, and `mapSize` changes
    // only under the exclusive resize lock.
    private let env: OpaquePointer
    private let resizeLock = ResizeLock()
    /// The named databases' handles, a dozen: found by comparing names, which for the engine's own
    /// `StoreLayout` constants is a compare of two words, cheaper than hashing the name at every call.
    private let databases: [(name: String, dbi: MDB_dbi)]
    private let directoryLock: DirectoryLock
    let path: String
    /// Opened with MDB_RDONLY because this user may not write the store (an auditor's read-only copy):
    /// every write transaction is refused with one sentence.
    let isReadOnly: Bool
    /// This process's writer's view of the unindexed tail, lent to readers (``TailDirectory``).
    let tailDirectory: TailDirectory? = TailDirectory()

    /// Opens (and with `create`, creates) the environment at `path` with the named databases,
    /// holding the directory lock shared (waiting while a compaction holds it), or holding `lock`.
    init(path: String, databaseNames: [String], mapHeadroom: Int, durable: Bool, create: Bool,
         lock: DirectoryLock? = nil, readOnly: Bool = false) throws {
        guard let directoryLock = try lock ?? DirectoryLock(path, exclusive: false, wait: true) else {
            throw EventLogError(.storeUnusable, "cannot lock the store directory \(path)", path: path)
        }
        var handle: OpaquePointer?
        try LMDBError.check(mdb_env_create(&handle), "mdb_env_create")
        guard let env = handle else { throw LMDBError(code: ENOMEM, operation: "mdb_env_create") }
        do {
            try LMDBError.check(mdb_env_set_maxdbs(env, MDB_dbi(databaseNames.count)), "mdb_env_set_maxdbs")
            try LMDBError.check(mdb_env_set_maxreaders(env, 256), "mdb_env_set_maxreaders")
            try LMDBError.check(mdb_env_set_mapsize(env, Self.mapSize(forFileAt: path, headroom: mapHeadroom)), "mdb_env_set_mapsize")
            var flags = UInt32(MDB_NOTLS)
            if !durable { flags |= UInt32(MDB_NOSYNC) }
            if readOnly { flags |= Self.readOnlyFlags(path) }
            try LMDBError.check(mdb_env_open(env, path, flags, 0o600), "mdb_env_open(\(path))")
            self.databases = try Self.openDatabases(env, names: databaseNames, create: create)
        } catch {
            mdb_env_close(env)
            throw error
        }
        self.env = env
        self.path = path
        self.directoryLock = directoryLock
        self.isReadOnly = readOnly
    }

    /// MDB_RDONLY, and MDB_NOLOCK when the lock file cannot be opened for writing (LMDB would fail, or
    /// create one in a directory the user may not change). Without the lock file a reader cannot tell a
    /// writer which pages it uses: fine for a read-only copy, which no one writes (docs/FORMAT.md §1).
    private static func readOnlyFlags(_ path: String) -> UInt32 {
        let lockFile = (path as NSString).appendingPathComponent(StoreLayout.lockFileName)
        let lockUsable = access(lockFile, R_OK | W_OK) == 0
        return UInt32(MDB_RDONLY) | (lockUsable ? 0 : UInt32(MDB_NOLOCK))
    }

    deinit {
        mdb_env_close(env)
    }

    /// ``reserve(_:)`` grows the map in steps of this many bytes (a multiple of every page size).
    private static let mapStep = 64 << 20

    /// The data file's size plus `headroom`, in whole MiB (a multiple of every page size); LMDB raises
    /// it to what the file's meta page records if that is more.
    private static func mapSize(forFileAt path: String, headroom: Int) -> Int {
        var status = stat()
        let dataFile = (path as NSString).appendingPathComponent(StoreLayout.dataFileName)
        let fileSize = stat(dataFile, &status) == 0 ? Int(status.st_size) : 0
        let mebibyte = 1 << 20
        return max(fileSize + headroom + mebibyte - 1, mebibyte) / mebibyte * mebibyte
    }

    private static func openDatabases(_ env: OpaquePointer, names: [String], create: Bool) throws -> [(name: String, dbi: MDB_dbi)] {
        var txn: OpaquePointer?
        try LMDBError.check(mdb_txn_begin(env, nil, create ? 0 : UInt32(MDB_RDONLY), &txn), "mdb_txn_begin")
        var result: [(name: String, dbi: MDB_dbi)] = []
        do {
            for name in names {
                var dbi = MDB_dbi()
                let code = mdb_dbi_open(txn, name, create ? UInt32(MDB_CREATE) : 0, &dbi)
                if code == MDB_NOTFOUND, !create { continue }  // a store of an older format: checked before use
                try LMDBError.check(code, "mdb_dbi_open(\(name))")
                result.append((name, dbi))
            }
            try LMDBError.check(mdb_txn_commit(txn), "mdb_txn_commit")
        } catch {
            mdb_txn_abort(txn)
            throw error
        }
        return result
    }

    /// The structure of the store file at `path` as of its latest snapshot (``PageStructure``), checked
    /// before anything walks its B-trees: opening the environment and beginning a read transaction read
    /// only the meta pages, and the transaction keeps that snapshot's pages from reuse meanwhile.
    static func structureProblems(path: String) throws -> [String] {
        var handle: OpaquePointer?
        try LMDBError.check(mdb_env_create(&handle), "mdb_env_create")
        guard let env = handle else { throw LMDBError(code: ENOMEM, operation: "mdb_env_create") }
        defer { mdb_env_close(env) }
        try LMDBError.check(mdb_env_set_maxreaders(env, 256), "mdb_env_set_maxreaders")
        try LMDBError.check(mdb_env_open(env, path, UInt32(MDB_NOTLS) | readOnlyFlags(path), 0o600), "mdb_env_open(\(path))")
        var txn: OpaquePointer?
        try LMDBError.check(mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn), "mdb_txn_begin")
        defer { mdb_txn_abort(txn) }
        return PageStructure.problems(ofFileAt: (path as NSString).appendingPathComponent(StoreLayout.dataFileName),
                                      transactionID: UInt64(mdb_txn_id(txn)))
    }

    /// Whether the database `name` exists (a store of an older format may lack one).
    func hasDatabase(_ name: String) -> Bool { databases.contains { $0.name == name } }

    /// The handle of database `name`; a store without it (an older format, or a main database so
    /// damaged that LMDB could not find it) is a thrown error, never a crash.
    func database(_ name: String) throws -> MDB_dbi {
        for database in databases where database.name == name { return database.dbi }
        throw EventLogError(.storeUnusable, "the store at \(path) lacks its \(name) database: it is another program's LMDB environment, a store of an older format, or a damaged one",
                            path: path)
    }

    /// Runs `body` in a read-only snapshot transaction.
    func read<R>(_ body: (LMDBTransaction) throws -> R) throws -> R {
        try run(readOnly: true, body)
    }

    /// Runs `body` in a write transaction and commits it. When the map is full, a `rerunnable` body
    /// (one that derives everything it writes inside itself) runs again from scratch after the map
    /// grows; any other is refused with ``EventLogError/Code/tooLarge`` and nothing of it is stored.
    func write<R>(rerunnable: Bool = true, _ body: (LMDBTransaction) throws -> R) throws -> R {
        guard !isReadOnly else {
            throw EventLogError(.permissionDenied, "the store at \(path) is read-only for this user (it may read but not write "
                                + "\(StoreLayout.dataFileName)); only reading commands work on it", path: path)
        }
        return try run(readOnly: false, rerunnable: rerunnable, body)
    }

    private func run<R>(readOnly: Bool, rerunnable: Bool = true, _ body: (LMDBTransaction) throws -> R) throws -> R {
        while true {
            do {
                return try resizeLock.withShared { () throws -> R in
                    var txn: OpaquePointer?
                    try LMDBError.check(
                        mdb_txn_begin(env, nil, readOnly ? UInt32(MDB_RDONLY) : 0, &txn), "mdb_txn_begin")
                    let result: R
                    do {
                        result = try body(LMDBTransaction(txn: txn!, environment: self))
                    } catch {
                        mdb_txn_abort(txn)
                        throw error
                    }
                    if readOnly {
                        mdb_txn_abort(txn)
                    } else {
                        // mdb_txn_commit frees the transaction whether or not it succeeds.
                        try LMDBError.check(mdb_txn_commit(txn), "mdb_txn_commit")
                    }
                    return result
                }
            } catch let error as LMDBError where error.isMapFull {
                let room = info().mapSize
                try growMap()
                guard rerunnable else {
                    throw EventLogError(.tooLarge, "one transaction wrote more than the store's map had room for (\(room >> 20) MiB, "
                                        + "the data file's size and its headroom); nothing of it was stored: split it into smaller "
                                        + "transactions, or open the store with a larger EventLogOptions.mapHeadroom",
                                        path: path)
                }
            } catch let error as LMDBError where error.isMapResized {
                // Another process grew the map: adopt its size, then run again.
                try resizeLock.withExclusive { try LMDBError.check(mdb_env_set_mapsize(env, 0), "mdb_env_set_mapsize") }
            }
        }
    }

    /// Doubles the map (by at least 64 MiB, at most 4 GiB at a time).
    private func growMap() throws {
        try resizeLock.withExclusive {
            let current = info().mapSize
            let step = min(max(current, 64 << 20), 4 << 30)
            try LMDBError.check(mdb_env_set_mapsize(env, current + step), "mdb_env_set_mapsize")
        }
    }

    /// Grows the map, if need be, so that `bytes` more fit after the pages in use: the room a long
    /// transaction has, since the map cannot grow while it runs.
    func reserve(_ bytes: Int) throws {
        try resizeLock.withExclusive {
            let info = info()
            let needed = info.pagesInUse * info.pageSize + bytes
            guard needed > info.mapSize else { return }
            try LMDBError.check(mdb_env_set_mapsize(env, (needed + Self.mapStep - 1) / Self.mapStep * Self.mapStep), "mdb_env_set_mapsize")
        }
    }

    struct Info {
        var mapSize: Int
        var pageSize: Int
        var pagesInUse: Int
    }

    func info() -> Info {
        var info = MDB_envinfo()
        mdb_env_info(env, &info)
        var stat = MDB_stat()
        mdb_env_stat(env, &stat)
        return Info(mapSize: info.me_mapsize, pageSize: Int(stat.ms_psize), pagesInUse: info.me_last_pgno + 1)
    }

    /// Lets go of the map's pages this process has read: they stop counting in its resident memory and
    /// are read again from the page cache when next touched. The map is read-only (no `MDB_WRITEMAP`),
    /// so nothing is lost; the resize lock keeps the map where it is meanwhile. LMDB does not tell where
    /// its map is (`me_mapaddr` is set only with `MDB_FIXEDMAP`): it is found in /proc/self/maps, so
    /// this does nothing on systems without it.
    func releaseMappedPages() {
        let dataFile = URL(fileURLWithPath: path).appendingPathComponent(StoreLayout.dataFileName).resolvingSymlinksInPath().path
        resizeLock.withShared {
            // Read to the end: /proc files report a size of 0, and a read sized from that can stop short.
            guard let maps = try? FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps")).readToEnd() else { return }
            for line in String(decoding: maps, as: UTF8.self).split(separator: "\n") where line.hasSuffix(" " + dataFile) {
                let range = line.prefix { $0 != " " }.split(separator: "-").compactMap { UInt(String($0), radix: 16) }
                guard range.count == 2, range[1] > range[0], let start = UnsafeMutableRawPointer(bitPattern: range[0]) else { continue }
                _ = madvise(start, Int(range[1] - range[0]), Int32(MADV_DONTNEED))
            }
        }
    }

    /// Writes a compacted copy of the environment (free pages left out, pages renumbered) to `descriptor`.
    func copyCompacted(to descriptor: Int32) throws {
        try LMDBError.check(mdb_env_copyfd2(env, descriptor, UInt32(MDB_CP_COMPACT)), "mdb_env_copyfd2")
    }

    /// Flushes data to disk; needed only for environments opened without `durable`.
    func sync() throws {
        guard !isReadOnly else { return }  // nothing was written; LMDB answers EACCES on a read-only environment
        try LMDBError.check(mdb_env_sync(env, 1), "mdb_env_sync")
    }
}
