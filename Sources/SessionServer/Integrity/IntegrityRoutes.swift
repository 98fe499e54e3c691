import Compliance
import EventLog
import Foundation
import Hummingbird
import Output
import OutputRows
import SessionModel

/// The store's integrity evidence over HTTP (``IntegrityEvidence``): `GET /v1/integrity` (the latest
/// verifications and checkpoints given out) and `POST /v1/integrity/verify` (verify the whole store now,
/// as `verify` does, and record it). Scope audit.
struct IntegrityRoutes {
    let log: EventLog

    func add(to router: RouterGroup<ServerContext>) {
        router.get("integrity") { _, context in
            try context.require(.audit)
            let latest = try IntegrityEvidence(log: log).latest()
            return Response.json(IntegrityDocument(verifications: latest.verifications.map { IntegrityRow(.verification($0)) },
                                                   checkpoints: latest.checkpoints.map { IntegrityRow(.checkpoint($0)) }).json)
        }
        router.post("integrity/verify") { _, context in
            let token = try context.require(.audit)
            return Response.json(IntegrityRow(.verification(try await Self.verify(log, by: token.actor))).json)
        }
    }

    /// Verifies the whole store on a thread of its own (a whole-log read must not hold one of the few
    /// threads tasks run on), then records what it found.
    static func verify(_ log: EventLog, by actor: String) async throws -> IntegrityEvidence.Entry<IntegrityVerified> {
        let clock = ContinuousClock(), start = clock.now
        let report = try await onThreadOfItsOwn { try log.verify(checkingStructure: false) }
        let took = clock.now - start
        let at = log.now
        guard try !log.isReadOnlyReplica() else {
            throw Problem(.readOnly, detail: "it verified (\(report.problemCount) problems) but cannot record it; verify on the primary")
        }
        let evidence = IntegrityEvidence(log: log)
        let position = try await evidence.recordVerification(report, took: took, by: actor, at: at)
        guard let entry = try evidence.latest(1).verifications.first, entry.position == position else {
            throw Problem(.internalFault)
        }
        return entry
    }
}

/// `{"verifications": [...], "checkpoints": [...]}`, newest first, each an ``IntegrityRow``.
private struct IntegrityDocument: OutputRow {
    static let columns = ["verifications", "checkpoints"]
    var verifications: [IntegrityRow]
    var checkpoints: [IntegrityRow]

    func write(to fields: inout Fields) {
        fields.field("verifications", rows: verifications)
        fields.field("checkpoints", rows: checkpoints)
    }
}
