import EventLog
import Foundation
import Migrations
import SessionLog
import SessionModel

/// The store's record of its own checks (the integrity stream, under the audit key): each verification
/// the server was asked for (`integrity.verified`) and each signed checkpoint given out
/// (`checkpoint.issued`: by `anchor`, with its witnesses, or by the server to an auditor). What the
/// console's integrity page and `GET /v1/integrity` show; it outlives a restart and is covered by the
/// Merkle tree like every other record.
public struct IntegrityEvidence {
    /// The store whose checks these are.
    public let log: EventLog

    public init(log: EventLog) {
        self.log = log
    }

    /// An entry of the evidence: the event, when it happened (ms since 1970) and its log position.
    public struct Entry<Payload: Sendable>: Sendable {
        public var payload: Payload
        public var occurredAt: Int64
        public var position: UInt64
    }

    /// Records what `verify` found.
    @discardableResult
    public func recordVerification(_ report: VerificationReport, took: Duration, by actor: String, at time: Int64) async throws -> UInt64 {
        let took = UInt64(max(0, took.components.seconds)) * 1000 + UInt64(max(0, took.components.attoseconds) / 1_000_000_000_000_000)
        let verified = IntegrityVerified(actor: actor, passed: report.problemCount == 0, recordsChecked: report.checkedRecords,
                                         erasedRecords: report.erasedRecords, treeSize: report.treeHead.size, rootHash: report.treeHead.rootHash,
                                         problemCount: UInt32(clamping: report.problemCount), firstProblem: report.problems.first.map { "\($0)" },
                                         tookMilliseconds: took)
        return try await append(.integrityVerified(verified), at: time)
    }

    /// Records a checkpoint given out, with the names of the witnesses that cosigned it.
    @discardableResult
    public func recordCheckpoint(_ checkpoint: Checkpoint, witnesses: [String] = [], by actor: String, at time: Int64) async throws -> UInt64 {
        try await append(.checkpointIssued(CheckpointIssued(actor: actor, treeSize: checkpoint.size, rootHash: checkpoint.rootHash,
                                                             witnesses: witnesses)), at: time)
    }

    /// The latest `limit` verifications and checkpoints given out, newest first.
    public func latest(_ limit: Int = 20) throws -> (verifications: [Entry<IntegrityVerified>], checkpoints: [Entry<CheckpointIssued>]) {
        var verifications: [Entry<IntegrityVerified>] = []
        var checkpoints: [Entry<CheckpointIssued>] = []
        let codec = SessionMigrations.codec
        var next: UInt64?
        // Backwards, a batch at a time, until both lists are full or the stream's start is reached.
        while verifications.count < limit || checkpoints.count < limit {
            let batch = try log.readStream(SessionStreams.integrity, from: next, direction: .backward, maxCount: 256)
            for recorded in batch {
                let event = try codec.decode(recorded)
                switch event.event.payload {
                case .integrityVerified(let verified) where verifications.count < limit:
                    verifications.append(Entry(payload: verified, occurredAt: event.event.occurredAt, position: recorded.position))
                case .checkpointIssued(let issued) where checkpoints.count < limit:
                    checkpoints.append(Entry(payload: issued, occurredAt: event.event.occurredAt, position: recorded.position))
                default:
                    break
                }
            }
            guard let last = batch.last, last.streamNumber > 0 else { break }
            next = last.streamNumber - 1
        }
        return (verifications, checkpoints)
    }

    private func append(_ payload: SessionPayload, at time: Int64) async throws -> UInt64 {
        let event = SessionEvent(session: SessionStreams.integrity.uuid, occurredAt: time, payload: payload)
        return try await log.append([SessionMigrations.codec.encode(event)], to: SessionStreams.integrity, keyScope: .audit).positions.lowerBound
    }
}

extension Checkpoint {
    /// The names on the note's signature lines other than the log's own (whose name is its origin): the
    /// witnesses that cosigned it.
    public var cosignerNames: [String] {
        signatureLines.compactMap { line -> String? in
            guard line.hasPrefix("— ") else { return nil }
            let name = line.dropFirst(2).split(separator: " ", maxSplits: 1).first.map(String.init)
            return name == origin ? nil : name
        }
    }
}
