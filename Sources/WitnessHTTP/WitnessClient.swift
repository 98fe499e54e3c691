import Compliance
import EventLog
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Collects cosignatures of a checkpoint from witnesses over C2SP tlog-witness.
package enum WitnessClient {
    /// What one witness answered.
    package struct Outcome: Sendable {
        package var url: URL
        /// The cosignature lines it returned (each ending in a newline); nil when it refused.
        package var signatureLines: String?
        /// Why it refused, in one sentence.
        package var refusal: String?
        /// The witness saw this log otherwise: another root at a size, no consistency from what it cosigned
        /// (409, 422), or a larger tree than this checkpoint's. False when it was unreachable or refused
        /// for another reason.
        package var contradicts = false
    }

    /// `checkpoint` with the cosignatures of the witnesses at `urls` (their submission prefixes), asked in
    /// turn, the consistency proofs they need read from `log`. At least `needed` (default: every witness)
    /// must cosign, or, with `keys`, that many of the witnesses those verifier keys name.
    /// - Throws: ``ComplianceError/Code/notWitnessed`` when too few cosigned and a witness saw the log
    ///   otherwise (or none said why); ``ComplianceError/Code/witnessesUnavailable`` when the others were
    ///   unreachable or refused for a reason of their own.
    package static func witnessed(_ checkpoint: Checkpoint, by urls: [URL], needed: Int? = nil, keys: [String] = [],
                                 log: EventLog) async throws -> Checkpoint {
        guard !urls.isEmpty else { return checkpoint }
        var lines: [String] = [], refusals: [String] = []
        var contradicted = false
        for url in urls {
            let outcome = await cosign(checkpoint, at: url) { try log.consistencyProof(from: $0, to: checkpoint.size) }
            if let signature = outcome.signatureLines { lines.append(signature) }
            if let refusal = outcome.refusal { refusals.append(refusal) }
            contradicted = contradicted || outcome.contradicts
        }
        let cosigned = checkpoint.adding(signatureLines: lines)
        let needed = needed ?? urls.count
        let vouching = keys.isEmpty ? lines.count : try WitnessQuorum.cosigners(of: cosigned, keys: keys).count
        guard vouching >= needed else {
            let sentence = "\(vouching) of the \(urls.count) witnesses cosigned the checkpoint; \(needed) are needed; nothing was written"
                + (refusals.isEmpty ? "" : ": " + refusals.joined(separator: "; "))
            throw ComplianceError(contradicted || refusals.isEmpty ? .notWitnessed : .witnessesUnavailable, sentence)
        }
        return cosigned
    }

    /// Asks the witness at `url` (its submission prefix) to cosign `checkpoint`. The first request says
    /// old size 0; a witness that cosigned this log before answers 409 with its size, and the request is
    /// made again from that size with the proof `proof(from:)` gives.
    package static func cosign(_ checkpoint: Checkpoint, at url: URL, proof: (UInt64) throws -> [[UInt8]]) async -> Outcome {
        var oldSize: UInt64 = 0
        var path: [[UInt8]] = []
        for _ in 0..<2 {
            let answer: (status: Int, type: String, body: String)
            do {
                answer = try await post(Witness.request(for: checkpoint, oldSize: oldSize, proof: path), to: url)
            } catch {
                return Outcome(url: url, refusal: "cannot reach the witness \(url.absoluteString): \(error.localizedDescription)")
            }
            switch answer.status {
            case 200:
                return Outcome(url: url, signatureLines: answer.body)
            case 409 where answer.type.hasPrefix("text/x.tlog.size") && oldSize == 0:
                guard let size = UInt64(answer.body.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                    return Outcome(url: url, refusal: "the witness \(url.absoluteString) answered 409 with no size")
                }
                guard size <= checkpoint.size else {
                    return Outcome(url: url, refusal: "the witness \(url.absoluteString) cosigned a larger tree of this log (\(size) records) "
                                   + "than this checkpoint's (\(checkpoint.size)): the log lost records, or is not the one it saw",
                                   contradicts: true)
                }
                oldSize = size
                do { path = try proof(size) } catch {
                    return Outcome(url: url, refusal: "no consistency proof from size \(size): \(error)")
                }
            default:
                let reason = answer.body.trimmingCharacters(in: .whitespacesAndNewlines)
                return Outcome(url: url, refusal: "the witness \(url.absoluteString) refused (HTTP \(answer.status)): \(reason)",
                               contradicts: [409, 422].contains(answer.status))
            }
        }
        return Outcome(url: url, refusal: "the witness \(url.absoluteString) kept answering 409")
    }

    private static func post(_ body: [UInt8], to prefix: URL) async throws -> (status: Int, type: String, body: String) {
        var request = URLRequest(url: prefix.appendingPathComponent("add-checkpoint"), timeoutInterval: 30)
        request.httpMethod = "POST"
        request.httpBody = Data(body)
        request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        return (http?.statusCode ?? 0, http?.value(forHTTPHeaderField: "Content-Type") ?? "", String(decoding: data, as: UTF8.self))
    }
}
