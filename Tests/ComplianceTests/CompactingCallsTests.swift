import Compliance
import EventLog
import Foundation
import Output
import Projections
import SessionLog
import SessionModel
import Testing
import TestSupport
import TimeCoding

/// The library calls that do a whole compliance job: a retention run or an erasure with the compaction
/// that must follow it, and a session's inclusion proofs.
@Suite struct CompactingCallsTests {
    /// The erasure tests' sessions in a new store, closed, and the reference that opens it again.
    static func closedStore(_ store: TemporaryStore) async throws -> (StoreReference, erased: [UUID], kept: [UUID]) {
        let log = try store.create()
        let (erased, kept) = try await SubjectErasureTests.ingestSessions(into: log)
        try log.close()
        return (StoreReference(location: store.storePath, key: store.key, options: .testing), erased, kept)
    }

    @Test func aRetentionRunPurgesAndCompactsInOneCallAndCompactsNothingWhenNothingIsDue() async throws {
        try await withTemporaryStore { store in
            let (reference, erased, kept) = try await Self.closedStore(store)
            let sessions = Set(erased + kept)
            let asOf = try #require(RFC3339.milliseconds("2026-11-30T00:00:00.000Z"))
            let purge = try await Retention.purge(in: reference, maxAge: 86_400_000, asOf: asOf, at: asOf, waitingUpTo: TestBackend.compactionWait)
            #expect(Set(purge.plan.sessions.map(\.session)) == sessions)
            #expect(purge.eventPosition != nil)
            let compaction = try #require(purge.compaction, "a purge that destroyed keys compacts")
            #expect(compaction.bytesAfter <= compaction.bytesBefore)

            let again = try await Retention.purge(in: reference, maxAge: 86_400_000, asOf: asOf, at: asOf, waitingUpTo: TestBackend.compactionWait)
            #expect(again.plan.sessions.isEmpty && again.eventPosition == nil)
            #expect(again.compaction == nil, "nothing purged, nothing compacted")
            try await reference.withLog { log throws in
                for session in sessions { #expect(try log.isErased(SessionStreams.session(session)) == true) }
            }
        }
    }

    @Test func anErasureWhoseCompactionCannotRunIsDoneAndASecondCallCompacts() async throws {
        try await withTemporaryStore { store in
            let (reference, erased, _) = try await Self.closedStore(store)
            do {
                let other = try reference.open()  // as another process's would: compaction needs the store alone
                await #expect {
                    _ = try await SubjectErasure.erase(userID: "erase-me", at: 1_000, in: reference, waitingUpTo: .milliseconds(200))
                } throws: { error in
                    (error as? EventLogError)?.code == .storeBusy
                }
                for session in erased { #expect(try other.isErased(SessionStreams.session(session)) == true, "erased all the same") }
                try other.close()
            }  // the log is released here, and with it the store's lock

            let second = try await SubjectErasure.erase(userID: "erase-me", at: 2_000, in: reference, waitingUpTo: TestBackend.compactionWait)
            #expect(second.erasure.erased.isEmpty && Set(second.erasure.alreadyErased) == Set(erased))
            #expect(second.erasure.eventPosition == nil, "no second subject.erased event")
            #expect(second.compaction.bytesAfter <= second.compaction.bytesBefore)
        }
    }

    @Test func aSessionsProofsLeadToTheCheckpointsRootAndEventsItDoesNotCoverAreRefused() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let (sessions, _) = try await SubjectErasureTests.ingestSessions(into: log)
            let checkpoint = try log.signedCheckpoint()
            let proofs = try InclusionProofs.of(sessions[0], against: checkpoint, in: log)
            #expect(proofs.map(\.streamNumber) == [0, 1, 2, 3, 4])
            for proof in proofs {
                #expect(MerkleProof.root(fromInclusion: proof.path, leafHash: proof.record.leafHash, index: proof.record.position,
                                         size: checkpoint.size) == checkpoint.rootHash)
            }
            #expect(try InclusionProofs.of(sessions[0], event: 3, against: checkpoint, in: log) == [proofs[3]])

            #expect { try InclusionProofs.of(sessions[0], event: 5, against: checkpoint, in: log) } throws: { error in
                (error as? ComplianceError)?.code == .outOfRange && "\(error)".contains("has 5 events; there is no event 5")
            }
            let (later, _) = try await SubjectErasureTests.ingestSessions(into: log)
            #expect { try InclusionProofs.of(later[0], against: checkpoint, in: log) } throws: { error in
                (error as? ComplianceError)?.code == .outOfRange && "\(error)".contains("newer than the checkpoint")
            }
        }
    }

    @Test func aConsistencyProofLeadsFromTheOlderCheckpointToTheNewerAndARewrittenRootIsCaught() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            _ = try await SubjectErasureTests.ingestSessions(into: log)
            let old = try log.signedCheckpoint()
            _ = try await SubjectErasureTests.ingestSessions(into: log)
            let new = try log.signedCheckpoint()
            let proof = try ConsistencyProofs.between(old, new, in: log)
            #expect(proof.old.size < proof.new.size && !proof.path.isEmpty)
            #expect(MerkleProof.verifyConsistency(proof.path, oldSize: old.size, oldRoot: old.rootHash, newSize: new.size, newRoot: new.rootHash))
            #expect(try ConsistencyProofs.between(new, new, in: log).path.isEmpty, "a checkpoint is consistent with itself")

            #expect { try ConsistencyProofs.between(new, old, in: log) } throws: { ($0 as? ComplianceError)?.code == .invalidRequest }
            var rewritten = old
            rewritten.rootHash[0] ^= 1
            #expect { try ConsistencyProofs.between(rewritten, new, in: log) } throws: { ($0 as? ComplianceError)?.code == .inconsistent }
            var ahead = new
            ahead.size += 1
            #expect { try ConsistencyProofs.between(old, ahead, in: log) } throws: { ($0 as? ComplianceError)?.code == .outOfRange }
        }
    }
}
