import EventLog
import Foundation

/// A C2SP tlog-witness: it keeps, per log, the latest checkpoint it cosigned, cosigns a new checkpoint
/// of a log it trusts only with a valid consistency proof from that one, and answers as
/// `POST /add-checkpoint` specifies (``WitnessAnswer``). The HTTP server (`sessionstore witness serve`)
/// and the offline command (`sessionstore witness add-checkpoint`) both call ``addCheckpoint(_:)``.
///
/// The logs it trusts are given by their checkpoint verifier keys; a log's key name is its origin (as
/// every SessionStore store's is). Its state lives in a directory (``WitnessState``): a witness
/// restarted, or killed halfway through an answer, remembers the last checkpoint it cosigned.
public actor Witness {
    /// The most consistency proof lines a request may carry (C2SP tlog-witness).
    static let maximumProofLines = 63
    /// The largest request body read, in bytes: a checkpoint with a few signatures and 63 hashes.
    public static let maximumRequestBytes = 64 << 10

    private let cosigner: Cosigner
    private let logs: [String: String]
    private let state: WitnessState
    private let clock: @Sendable () -> UInt64

    /// A witness cosigning as `cosigner`, trusting the logs whose checkpoint verifier keys are `logKeys`,
    /// keeping its state in `stateDirectory`. `clock` gives the cosignatures' time (seconds since 1970).
    public init(cosigner: Cosigner, logKeys: [String], stateDirectory: URL,
                clock: @escaping @Sendable () -> UInt64 = { UInt64(Date().timeIntervalSince1970) }) throws {
        var logs: [String: String] = [:]
        for key in logKeys {
            guard let name = key.split(separator: "+").first.map(String.init), !name.isEmpty else {
                throw ComplianceError(.invalidRequest, "\(key) is not a log's verifier key (NAME+KEYHASH+BASE64)")
            }
            logs[name] = key
        }
        self.cosigner = cosigner
        self.logs = logs
        self.state = try WitnessState(directory: stateDirectory)
        self.clock = clock
    }

    /// Answers one `add-checkpoint` request body.
    public func addCheckpoint(_ request: [UInt8]) -> WitnessAnswer {
        let parsed: Request
        switch Self.parse(request) {
        case .request(let value): parsed = value
        case .refusal(let answer): return answer
        }
        let origin = String(parsed.note.prefix { $0 != "\n" })
        guard let logKey = logs[origin] else { return .refused(404, "this witness does not know the log \(origin)") }
        let checkpoint: Checkpoint
        do {
            checkpoint = try Checkpoint.verified(parsed.note, verifierKey: logKey)
        } catch let error as EventLogError where error.code == .foreignCheckpoint {
            return .refused(403, "no signature on the checkpoint verifies with the key this witness trusts for \(origin)")
        } catch {
            return .refused(400, "the checkpoint is malformed: \(error)")
        }
        guard parsed.oldSize <= checkpoint.size else {
            return .refused(400, "the old size \(parsed.oldSize) is larger than the checkpoint's size \(checkpoint.size)")
        }
        do {
            return try state.locked { () throws -> WitnessAnswer in
                let latest = try state.latest(of: origin).map { try Checkpoint.verified($0, verifierKey: logKey) }
                let latestSize = latest?.size ?? 0
                guard parsed.oldSize == latestSize else { return .conflict(size: latestSize) }
                if let latest {
                    if latest.size == checkpoint.size, latest.rootHash != checkpoint.rootHash {
                        return .refused(409, "this witness cosigned another root hash for size \(checkpoint.size) of \(origin): the log forked")
                    }
                    guard MerkleProof.verifyConsistency(parsed.proof, oldSize: latest.size, oldRoot: latest.rootHash,
                                                       newSize: checkpoint.size, newRoot: checkpoint.rootHash) else {
                        return .refused(422, "the consistency proof from size \(latest.size) to \(checkpoint.size) does not verify: "
                                        + "the checkpoint does not extend the one this witness cosigned last")
                    }
                } else if !parsed.proof.isEmpty {
                    return .refused(422, "a request from old size 0 carries no consistency proof")
                }
                try state.record(checkpoint.text, of: origin)
                return .cosigned(cosigner.cosign(body: checkpoint.body, at: clock()))
            }
        } catch {
            return .refused(500, "the witness cannot use its state: \(error)")
        }
    }

    struct Request {
        var oldSize: UInt64
        var proof: [[UInt8]]
        var note: String
    }

    enum Parsed {
        case request(Request)
        case refusal(WitnessAnswer)
    }

    /// The request's old size, proof and checkpoint note, or the answer refusing it.
    static func parse(_ request: [UInt8]) -> Parsed {
        guard request.count <= maximumRequestBytes else { return .refusal(.refused(400, "the request is larger than \(maximumRequestBytes) bytes")) }
        guard let text = String(validating: request, as: UTF8.self) else { return .refusal(.refused(400, "the request is not UTF-8 text")) }
        guard let split = text.range(of: "\n\n") else {
            return .refusal(.refused(400, "the request has no empty line between its old size and proof and the checkpoint"))
        }
        let head = text[..<split.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
        guard let first = head.first, first.hasPrefix("old "), let oldSize = UInt64(first.dropFirst(4)), String(oldSize) == first.dropFirst(4) else {
            return .refusal(.refused(400, "the request's first line is not `old SIZE` (a decimal with no leading zeroes)"))
        }
        guard head.count - 1 <= maximumProofLines else {
            return .refusal(.refused(400, "the request has \(head.count - 1) proof lines; at most \(maximumProofLines) are allowed"))
        }
        var proof: [[UInt8]] = []
        for (index, line) in head.dropFirst().enumerated() {
            guard let hash = Data(base64Encoded: String(line)), hash.count == 32 else {
                return .refusal(.refused(400, "proof line \(index + 1) is not a base64 SHA-256 hash"))
            }
            proof.append(Array(hash))
        }
        let note = String(text[split.upperBound...])
        guard note.hasSuffix("\n") else { return .refusal(.refused(400, "the checkpoint does not end in a newline")) }
        return .request(Request(oldSize: oldSize, proof: proof, note: note))
    }

    /// A request body for `checkpoint`, from `oldSize` with `proof` (C2SP tlog-witness).
    public static func request(for checkpoint: Checkpoint, oldSize: UInt64, proof: [[UInt8]]) -> [UInt8] {
        Array(("old \(oldSize)\n" + proof.map { Data($0).base64EncodedString() + "\n" }.joined() + "\n" + checkpoint.text).utf8)
    }
}
