import EventLog
import Foundation

/// What ``Retention/purge(in:maxAge:partialsMaxAge:asOf:at:waitingUpTo:stage:)`` did.
public struct CompactedPurge: Sendable {
    /// The sessions purged, and those that lost their partials.
    public var plan: Retention.Plan
    /// The position of the first `retention.purged` event; nil when there was nothing to purge.
    public var eventPosition: UInt64?
    /// The compaction that followed; nil when nothing was purged (and nothing compacted).
    public var compaction: CompactionReport?
}

extension Retention {
    /// Applies the retention policy to the store and compacts it when anything was purged: the whole of
    /// a retention run, in one call. The store is opened and closed here; compaction needs it alone and
    /// waits up to `timeout` for other processes to close it. The arguments are those of
    /// ``plan(maxAge:partialsMaxAge:asOf:)``; `time` dates the events.
    ///
    /// When the compaction cannot run (the store stays busy), its error is thrown and the purge is done
    /// all the same: finish with ``StoreReference/compact(waitingUpTo:)`` (calling again finds nothing
    /// to purge and so does not compact).
    public static func purge(in store: StoreReference, maxAge: Int64? = nil, partialsMaxAge: Int64? = nil, asOf: Int64? = nil,
                             at time: Int64, waitingUpTo timeout: Duration = .seconds(10),
                             stage: (String) -> Void = { _ in }) async throws -> CompactedPurge {
        var purge = try await store.withLog { log in
            let retention = Retention(log: log)
            let plan = try retention.plan(maxAge: maxAge, partialsMaxAge: partialsMaxAge, asOf: asOf)
            stage("destroying the keys of \(plan.sessions.count + plan.partialsSessions.count) sessions")
            let applied = try await retention.apply(plan, at: time)
            return CompactedPurge(plan: applied.plan, eventPosition: applied.eventPosition)
        }
        if !purge.plan.sessions.isEmpty || !purge.plan.partialsSessions.isEmpty {
            stage("compacting the store file")
            purge.compaction = try store.compact(waitingUpTo: timeout)
        }
        return purge
    }
}
