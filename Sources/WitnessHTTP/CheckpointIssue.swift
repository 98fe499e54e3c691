import Compliance
import EventLog
import Foundation

/// Giving out a checkpoint, as `anchor` and `GET /v1/checkpoint` do: the log's signed checkpoint now,
/// cosigned by the witnesses asked, recorded in the store's integrity evidence (`checkpoint.issued`,
/// with the cosigners' names) so that an auditor can later see what was handed out.
package enum CheckpointIssue {
    /// A checkpoint given out, and whether the store recorded it: a store that is a read-only replica
    /// here cannot, and a checkpoint asked for with `recording: false` is not.
    package struct Issued: Sendable {
        package var checkpoint: Checkpoint
        package var isRecorded: Bool
    }

    /// Signs the log's checkpoint, has the witnesses at `witnesses` cosign it (at least `needed`, or of
    /// those whose verifier keys are `keys`: ``WitnessClient/witnessed(_:by:needed:keys:log:)``), and
    /// records it as given out by `actor`.
    package static func issue(from log: EventLog, witnesses: [URL] = [], needed: Int? = nil, keys: [String] = [],
                             by actor: String, recording: Bool = true) async throws -> Issued {
        let checkpoint = try await WitnessClient.witnessed(try log.signedCheckpoint(), by: witnesses, needed: needed, keys: keys, log: log)
        guard recording, try !log.isReadOnlyReplica() else { return Issued(checkpoint: checkpoint, isRecorded: false) }
        try await IntegrityEvidence(log: log).recordCheckpoint(checkpoint, witnesses: checkpoint.cosignerNames, by: actor, at: log.now)
        return Issued(checkpoint: checkpoint, isRecorded: true)
    }
}
