import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension LMDBEnvironment {
    /// Writes a compacted copy of the data file (LMDB's `mdb_env_copyfd2` with `MDB_CP_COMPACT`: no free
    /// pages) beside it, syncs it, renames it over the data file and removes the lock file, which
    /// describes the old file. The environment must hold the directory alone (``OpenMode/exclusive(_:)``):
    /// it keeps that hold until it is released, after the new file is in place. A crash leaves either
    /// file, and at worst a stray copy that the next compaction removes. Returns the data file's size
    /// before and after.
    func replaceWithCompactedCopy() throws -> (before: UInt64, after: UInt64) {
        let dataPath = (path as NSString).appendingPathComponent(StoreLayout.dataFileName)
        let copyPath = (path as NSString).appendingPathComponent(StoreLayout.compactingFileName)
        let before = Self.fileSize(dataPath)
        unlink(copyPath)
        do {
            let descriptor = open(copyPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw failure("cannot create \(copyPath)") }
            defer { close(descriptor) }
            try copyCompacted(to: descriptor)
            guard fsync(descriptor) == 0 else { throw failure("cannot sync \(copyPath)") }
        } catch {
            unlink(copyPath)
            throw error
        }
        guard rename(copyPath, dataPath) == 0 else {
            let error = failure("cannot replace \(dataPath)")
            unlink(copyPath)
            throw error
        }
        unlink((path as NSString).appendingPathComponent(StoreLayout.lockFileName))  // LMDB makes a new one
        let directoryDescriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
        return (before, Self.fileSize(dataPath))
    }

    private static func fileSize(_ path: String) -> UInt64 {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_size) : 0
    }

    private func failure(_ what: String) -> EventLogError {
        EventLogError(.storage, "\(what): \(String(cString: strerror(errno)))", path: path)
    }
}
