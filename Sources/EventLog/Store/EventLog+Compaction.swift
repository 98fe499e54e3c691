import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What ``EventLog/compact(at:waitingUpTo:)`` did.
public struct CompactionReport: Hashable, Sendable {
    /// The size of `data.mdb` before, in bytes.
    public var bytesBefore: UInt64
    /// The size of `data.mdb` after, in bytes.
    public var bytesAfter: UInt64
    /// How long the copy and the swap took.
    public var duration: Duration
}

extension EventLog {
    /// The compacted copy's name while it is written, in the store directory.
    static let compactingFileName = "data.mdb.compacting"

    /// On PostgreSQL, rewrites the store's tables with `VACUUM FULL` instead, under the same exclusive
    /// hold, and reports their sizes on the server.
    ///
    /// Rewrites `data.mdb` without its free pages, so that nothing deleted (a destroyed key, a removed
    /// view row, an older version of any page) survives in the file; then replaces the file
    /// atomically. Needs no key.
    ///
    /// Holds the store directory's lock exclusively: waits up to `timeout` for every other open of
    /// the store (in this process too: release every ``EventLog`` of it first, `close()` is not
    /// enough) to go, and refuses with
    /// ``EventLogError/Code/storeBusy`` if one stays open. Opens of the store that start meanwhile
    /// wait for it to finish. A crash leaves either the old file or the new one, and at worst a
    /// stray `data.mdb.compacting` that the next compaction removes.
    @discardableResult
    public static func compact(at directory: String, waitingUpTo timeout: Duration = .seconds(10)) throws -> CompactionReport {
        let clock = ContinuousClock()
        let start = clock.now
        var noHeadroom = EventLogOptions()
        noHeadroom.mapHeadroom = 0  // nothing is written through this map
        let environment = try StoreEnvironment.open(directory, .exclusive(timeout), options: noHeadroom)
        switch environment {
        case .postgres(let storage):
            do {
                let before = try storage.bytesOnServer()
                try storage.vacuumFull()
                return CompactionReport(bytesBefore: before, bytesAfter: try storage.bytesOnServer(), duration: clock.now - start)
            } catch {
                throw EventLogError.storage(error)
            }
        case .lmdb(let lmdb):
            // The environment, and with it the directory's exclusive lock, lives until the new file is in place.
            let dataPath = (directory as NSString).appendingPathComponent(StoreLayout.dataFileName)
            let before = fileSize(dataPath)
            try withExtendedLifetime(lmdb) {
                try replaceWithCompactedCopy(of: lmdb, at: directory)
            }
            return CompactionReport(bytesBefore: before, bytesAfter: fileSize(dataPath), duration: clock.now - start)
        }
    }

    /// Writes a compacted copy of the data file beside it, syncs it and renames it over the data file.
    private static func replaceWithCompactedCopy(of environment: LMDBEnvironment, at directory: String) throws {
        let dataPath = (directory as NSString).appendingPathComponent(StoreLayout.dataFileName)
        let copyPath = (directory as NSString).appendingPathComponent(compactingFileName)
        unlink(copyPath)
        do {
            let descriptor = openFile(copyPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw failure("cannot create \(copyPath)", directory) }
            defer { closeFile(descriptor) }
            try environment.copyCompacted(to: descriptor)
            guard fsync(descriptor) == 0 else { throw failure("cannot sync \(copyPath)", directory) }
        } catch {
            unlink(copyPath)
            throw EventLogError.storage(error)
        }
        guard rename(copyPath, dataPath) == 0 else {
            let error = failure("cannot replace \(dataPath)", directory)
            unlink(copyPath)
            throw error
        }
        // The lock file describes the old file's readers and transactions; LMDB makes a new one.
        unlink((directory as NSString).appendingPathComponent(StoreLayout.lockFileName))
        let directoryDescriptor = openFile(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            closeFile(directoryDescriptor)
        }
    }

    private static func fileSize(_ path: String) -> UInt64 {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_size) : 0
    }

    private static func failure(_ what: String, _ directory: String) -> EventLogError {
        EventLogError(.storage, "\(what): \(String(cString: strerror(errno)))", path: directory)
    }
}

/// `open(2)` and `close(2)`, reachable from inside `EventLog`, whose own `open` and `close` hide them.
private func openFile(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
    open(path, flags, mode)
}

private func closeFile(_ descriptor: Int32) {
    close(descriptor)
}
