import EventLog
import Foundation
import SessionLog
import SessionModel

/// What ``SubjectErasure/erase(userID:reference:at:in:waitingUpTo:stage:)`` did: the erasure, then the
/// compaction that leaves no older copy of the destroyed keys in the store.
public struct CompactedErasure: Hashable, Sendable {
    /// The erasure.
    public var erasure: ErasureReport
    /// The compaction that followed it.
    public var compaction: CompactionReport
}

extension SubjectErasure {
    /// Erases every session of the person `userID` (their raw id, hashed here with the store's key) in
    /// the store, then compacts it: the whole of what an erasure request needs, in one call. The store is
    /// opened and closed here; compaction needs it alone and waits up to `timeout` for other processes
    /// to close it.
    ///
    /// When the compaction cannot run (the store stays busy), its error is thrown and the erasure is
    /// done all the same: call again, which finds the sessions already erased and compacts.
    /// - Parameters:
    ///   - reference: the erasure request's reference (a ticket number), kept in the event.
    ///   - time: when the erasure happened (ms since 1970).
    ///   - stage: told what is being done, for progress.
    /// - Throws: ``ComplianceError/Code/unknownSubject`` when the store holds no session of the person.
    public static func erase(userID: String, reference: String? = nil, at time: Int64, in store: StoreReference,
                             waitingUpTo timeout: Duration = .seconds(10),
                             stage: (String) -> Void = { _ in }) async throws -> CompactedErasure {
        stage("destroying the keys of the person's sessions")
        let erasure = try await store.withLog { log in
            try await SubjectErasure(log: log).erase(log.subject(userID), reference: reference, at: time)
        }
        stage("compacting the store file")
        return CompactedErasure(erasure: erasure, compaction: try store.compact(waitingUpTo: timeout))
    }
}
