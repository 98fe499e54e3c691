import Compliance
import EventLog
import Foundation
import Hummingbird
import Output

/// What an auditor keeps without us: `GET /v1/checkpoint` (the signed checkpoint of the log now, a C2SP
/// note, as `anchor` writes it), `/v1/checkpoint/verifier-key`, and
/// `GET /v1/sessions/{id}/proofs/{event}` (a C2SP tlog-proof of one record against it, as `prove
/// --bundle` writes it, that anyone verifies offline: docs/COMPLIANCE.md).
struct ProofRoutes {
    let log: EventLog

    func add(to router: RouterGroup<ServerContext>) {
        router.get("checkpoint") { _, context in
            try context.require(.audit)
            return Self.text(try log.signedCheckpoint().text)
        }
        router.get("checkpoint/verifier-key") { _, context in
            try context.require(.audit)
            return Self.text(log.checkpointVerifierKey + "\n")
        }
        router.get("sessions/:session/proofs/:event") { _, context in
            try context.require(.audit)
            let argument = try context.parameters.require("session")
            guard let session = UUID(uuidString: argument) else { throw Problem.badRequest("\(argument) is not a session id (a UUID)") }
            let number = try context.parameters.require("event")
            guard let event = UInt64(number) else { throw Problem.badRequest("\(number) is not an event number (0, 1, …)") }
            guard try log.streamMetadata(.init(session)) != nil else {
                throw Problem.notFound("the store has no session \(session.uuidString.lowercased())")
            }
            do {
                let proofs = try InclusionProofs.of(session, event: event, against: try log.signedCheckpoint(), in: log)
                return Self.text(proofs[0].tlogProof)
            } catch let error as ComplianceError where error.code == .outOfRange {
                throw Problem.notFound(error.message)
            }
        }
    }

    static func text(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
