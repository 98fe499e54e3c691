import Compliance
import EventLog
import Foundation
import Hummingbird
import Output
import OutputRows
import SessionLog
import WitnessHTTP

/// What an auditor keeps without us: `GET /v1/checkpoint` (the signed checkpoint of the log now, a C2SP
/// note, as `anchor` writes it, recorded as given out: `checkpoint.issued`), `/v1/checkpoint/verifier-key`, and
/// `POST /v1/checkpoint/consistency` (the RFC 9162 consistency proof from a checkpoint the auditor kept
/// to the log now, as `prove --from OLD` prints it), and `GET /v1/sessions/{id}/proofs/{event}` (a C2SP
/// tlog-proof of one record against the checkpoint now, as `prove --bundle` writes it, that anyone
/// verifies offline: docs/COMPLIANCE.md), and `GET /v1/records/{position}/proof`, the same of any record
/// by its log position (a consent event's copy in its subject's trail, for one).
struct ProofRoutes {
    let log: EventLog

    func add(to router: RouterGroup<ServerContext>) {
        router.get("checkpoint") { request, context in
            let token = try context.require(.audit)
            return Self.text(try await CheckpointIssue.issue(from: log, by: token.actor, recording: request.method != .head).checkpoint.text)
        }
        router.get("checkpoint/verifier-key") { _, context in
            try context.require(.audit)
            return Self.text(log.checkpointVerifierKey + "\n")
        }
        router.post("checkpoint/consistency") { request, context in
            try context.require(.audit)
            let body = try await request.body.collect(upTo: 64 << 10)
            // A note this store did not sign is invalid data (422); a log that does not extend it, inconsistent (409).
            let old = try Checkpoint.verified(String(buffer: body), verifierKey: log.checkpointVerifierKey)
            return Response.json(ConsistencyRow(proof: try ConsistencyProofs.between(old, try log.signedCheckpoint(), in: log)).json)
        }
        router.get("records/:position/proof") { _, context in
            try context.require(.audit)
            let number = try context.parameters.require("position")
            let position = try Problem.position(number, "position")
            return Self.text(try InclusionProofs.tlogProof(ofRecordAt: position, against: try log.signedCheckpoint(), in: log))
        }
        router.get("sessions/:session/proofs/:event") { _, context in
            try context.require(.audit)
            let session = try SessionLookup.resolve(try context.parameters.require("session", as: SessionName.self), in: log)
            let number = try context.parameters.require("event")
            let event = try Problem.position(number, "event")
            try SessionLookup.existing(session, in: log, allowErased: true)
            let proofs = try InclusionProofs.of(session, event: event, against: try log.signedCheckpoint(), in: log)
            return Self.text(proofs[0].tlogProof)
        }
    }

    static func text(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
