import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What ``EventLog/compact(at:waitingUpTo:options:)`` did.
public struct CompactionReport: Hashable, Sendable {
    /// The size of `data.mdb` before, in bytes.
    public var bytesBefore: UInt64
    /// The size of `data.mdb` after, in bytes.
    public var bytesAfter: UInt64
    /// How long the copy and the swap took.
    public var duration: Duration
}

extension EventLog {
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
    ///
    /// On PostgreSQL, rewrites the store's tables with `VACUUM FULL` instead, under the same exclusive
    /// hold, and reports their sizes on the server.
    @discardableResult
    public static func compact(at directory: String, waitingUpTo timeout: Duration = .seconds(10),
                               options: EventLogOptions = EventLogOptions()) throws -> CompactionReport {
        let clock = ContinuousClock()
        let start = clock.now
        var noHeadroom = options
        noHeadroom.mapHeadroom = 0  // nothing is written through this map
        let environment = try StoreEnvironment.open(directory, .exclusive(timeout), options: noHeadroom)
        do {
            let (before, after) = try environment.compactInPlace()
            return CompactionReport(bytesBefore: before, bytesAfter: after, duration: clock.now - start)
        } catch {
            throw EventLogError.storage(error)
        }
    }
}
