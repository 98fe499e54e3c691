import EventLog
import Foundation

/// Which witnesses vouch for a checkpoint: cosignatures checked against the witness keys a verifier
/// trusts, and a quorum of them required.
public enum WitnessQuorum {
    /// The names of the witnesses among `keys` (vkeys) with a valid cosignature on `checkpoint`.
    /// - Throws: ``EventLogError/Code/invalidArgument`` for a key that is not a witness key.
    public static func cosigners(of checkpoint: Checkpoint, keys: [String]) throws -> [String] {
        let lines = checkpoint.signatureLines
        return try keys.map(CosignatureVerifier.init).compactMap { verifier in
            verifier.timestamp(ofCosignatureIn: lines, body: checkpoint.body) == nil ? nil : verifier.name
        }
    }

    /// Requires `needed` of the witnesses `keys` to have cosigned `checkpoint`; returns their names.
    /// - Throws: ``ComplianceError/Code/notWitnessed`` when fewer did.
    @discardableResult
    public static func require(_ needed: Int, of keys: [String], on checkpoint: Checkpoint) throws -> [String] {
        let cosigners = try cosigners(of: checkpoint, keys: keys)
        guard cosigners.count >= needed else {
            let which = cosigners.isEmpty ? "none of the \(keys.count) witnesses given" : "only \(cosigners.joined(separator: ", "))"
            throw ComplianceError(.notWitnessed, "the checkpoint carries valid cosignatures of \(which); \(needed) are needed")
        }
        return cosigners
    }
}
