@testable import Compliance
import EventLog
import Foundation
import Testing
import TestSupport

/// The witness of C2SP tlog-witness: it cosigns only what extends what it cosigned, answers each bad
/// request with the status the specification gives it, and remembers across restarts.
@Suite struct WitnessTests {
    static let cosigner = try! Cosigner(name: "witness.test/w1", seed: Array(repeating: 7, count: 32))

    /// A store holding `count` events.
    static func store(_ store: TemporaryStore, events count: Int) async throws -> EventLog {
        let log = try store.create()
        try await log.append((0..<count).map { event("e\($0)") }, to: StreamID())
        return log
    }

    static func witness(_ directory: URL, trusting log: EventLog, at time: UInt64 = 1_790_000_000) throws -> Witness {
        try Witness(cosigner: cosigner, logKeys: [log.checkpointVerifierKey], stateDirectory: directory, clock: { time })
    }

    static func body(_ answer: WitnessAnswer) -> String { answer.body }

    @Test func aWitnessCosignsAFirstCheckpointThenOnlyWhatExtendsItAndItsCosignatureVerifies() async throws {
        try await withTemporaryStore { store in
            let log = try await Self.store(store, events: 5)
            let witness = try Self.witness(store.root.appendingPathComponent("witness"), trusting: log)
            let first = try log.signedCheckpoint()
            let answer = await witness.addCheckpoint(Witness.request(for: first, oldSize: 0, proof: []))
            #expect(answer.status == 200, "\(answer.body)")
            let verifier = try CosignatureVerifier(Self.cosigner.verifierKey)
            #expect(verifier.timestamp(ofCosignatureIn: answer.body.split(separator: "\n"), body: first.body) == 1_790_000_000)
            let cosigned = first.adding(signatureLines: [answer.body])
            #expect(try Checkpoint.verified(cosigned.text, verifierKey: log.checkpointVerifierKey).size == 5, "the log's signature still verifies")

            try await log.append([event("more"), event("more")], to: StreamID())
            let second = try log.signedCheckpoint()
            let extended = await witness.addCheckpoint(Witness.request(for: second, oldSize: 5, proof: try log.consistencyProof(from: 5, to: 7)))
            #expect(extended.status == 200, "\(extended.body)")
            #expect(verifier.timestamp(ofCosignatureIn: extended.body.split(separator: "\n"), body: first.body) == nil, "it covers the new body only")
            #expect(verifier.timestamp(ofCosignatureIn: extended.body.split(separator: "\n"), body: second.body) != nil)
        }
    }

    @Test func aStaleOldSizeGetsTheSizeCosignedLastAndTheSameSizeAgainIsCosigned() async throws {
        try await withTemporaryStore { store in
            let log = try await Self.store(store, events: 4)
            let witness = try Self.witness(store.root.appendingPathComponent("witness"), trusting: log)
            let checkpoint = try log.signedCheckpoint()
            #expect(await witness.addCheckpoint(Witness.request(for: checkpoint, oldSize: 0, proof: [])).status == 200)
            let stale = await witness.addCheckpoint(Witness.request(for: checkpoint, oldSize: 0, proof: []))
            #expect(stale.status == 409 && stale.contentType == "text/x.tlog.size" && stale.body == "4\n")
            #expect(await witness.addCheckpoint(Witness.request(for: checkpoint, oldSize: 4, proof: [])).status == 200)
        }
    }

    @Test func hostileRequestsAreRefusedWithTheStatusTheSpecificationGivesAndChangeNothing() async throws {
        try await withTemporaryStore { store in
            let log = try await Self.store(store, events: 6)
            let directory = store.root.appendingPathComponent("witness")
            let witness = try Self.witness(directory, trusting: log)
            let small = try log.signedCheckpoint(size: 3)
            #expect(await witness.addCheckpoint(Witness.request(for: small, oldSize: 0, proof: [])).status == 200)
            let checkpoint = try log.signedCheckpoint()
            let proof = try log.consistencyProof(from: 3, to: 6)
            let good = String(decoding: Witness.request(for: checkpoint, oldSize: 3, proof: proof), as: UTF8.self)

            func status(_ text: String) async -> Int { await witness.addCheckpoint(Array(text.utf8)).status }
            #expect(await status(good.replacingOccurrences(of: "\n\n", with: "\n")) == 400, "no empty line")
            #expect(await status(good.replacingOccurrences(of: "old 3", with: "old 03")) == 400, "a leading zero")
            #expect(await status(good.replacingOccurrences(of: "old 3", with: "older 3")) == 400)
            #expect(await status("old 3\n" + String(repeating: "AAAA\n", count: 2) + "\n" + checkpoint.text) == 400, "a proof line that is no hash")
            let tooLong = "old 3\n" + String(repeating: Data(proof[0]).base64EncodedString() + "\n", count: 64) + "\n" + checkpoint.text
            #expect(await status(tooLong) == 400, "more than 63 proof lines")
            #expect(await status(String(good.dropLast())) == 400, "a checkpoint not ending in a newline")
            #expect(await status(good.replacingOccurrences(of: "old 3", with: "old 7")) == 400, "an old size beyond the checkpoint")

            let other = try await withTemporaryStore { otherStore in try await Self.store(otherStore, events: 6).signedCheckpoint() }
            #expect(await witness.addCheckpoint(Witness.request(for: other, oldSize: 3, proof: proof)).status == 404, "another log")
            let forged = checkpoint.text.replacingOccurrences(of: "\n6\n", with: "\n7\n")
            #expect(await status("old 3\n" + proof.map { Data($0).base64EncodedString() + "\n" }.joined() + "\n" + forged) == 403,
                    "a body the log did not sign")
            var badProof = proof
            badProof[0][0] ^= 1
            let refused = await witness.addCheckpoint(Witness.request(for: checkpoint, oldSize: 3, proof: badProof))
            #expect(refused.status == 422 && refused.body.contains("does not verify"))
            #expect(await witness.addCheckpoint(Witness.request(for: small, oldSize: 3, proof: [])).status == 200, "nothing moved the state")
            let smaller = try log.signedCheckpoint(size: 2)
            #expect(await witness.addCheckpoint(Witness.request(for: smaller, oldSize: 3, proof: [])).status == 400, "a smaller tree")
            #expect(await status(good) == 200)
        }
    }

    @Test func aForkedStoreRewrittenAndResignedIsRefusedByAWitnessThatSawTheOldCheckpoint() async throws {
        try await withTemporaryStore { store in
            let log = try await Self.store(store, events: 3)
            let fork = store.root.appendingPathComponent("fork").path
            try log.copy(to: fork)  // the same store id and keys: the same origin and signing key
            try await log.append([event("what happened")], to: StreamID())
            let witness = try Self.witness(store.root.appendingPathComponent("witness"), trusting: log)
            let honest = try log.signedCheckpoint()
            #expect(await witness.addCheckpoint(Witness.request(for: honest, oldSize: 0, proof: [])).status == 200)

            let rewritten = try EventLog.open(at: fork, key: store.key, options: .testing)
            try await rewritten.append([event("what is claimed"), event("and more")], to: StreamID())
            let forged = try rewritten.signedCheckpoint()
            #expect(forged.origin == honest.origin)
            let refused = await witness.addCheckpoint(Witness.request(for: forged, oldSize: 4, proof: try rewritten.consistencyProof(from: 4, to: 5)))
            #expect(refused.status == 422)
            let unproved = await witness.addCheckpoint(Witness.request(for: forged, oldSize: 4, proof: []))
            #expect(unproved.status == 422, "a larger checkpoint with no consistency proof at all: \(Self.body(unproved))")
            let sameSize = try rewritten.signedCheckpoint(size: 4)
            #expect(await witness.addCheckpoint(Witness.request(for: sameSize, oldSize: 4, proof: [])).status == 409, "another root for size 4")
        }
    }

    @Test func aWitnessRestartedRemembersTheLastCheckpointItCosignedAndIgnoresAHalfWrittenFile() async throws {
        try await withTemporaryStore { store in
            let log = try await Self.store(store, events: 2)
            let directory = store.root.appendingPathComponent("witness")
            let first = try Self.witness(directory, trusting: log)
            #expect(await first.addCheckpoint(Witness.request(for: try log.signedCheckpoint(), oldSize: 0, proof: [])).status == 200)
            // A crash between writing the new state and renaming it leaves a `.new` file: it is not the state.
            for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) where file.hasSuffix(".checkpoint") {
                try Data("garbage".utf8).write(to: directory.appendingPathComponent(file + ".new"))
            }
            let restarted = try Self.witness(directory, trusting: log)
            let again = await restarted.addCheckpoint(Witness.request(for: try log.signedCheckpoint(), oldSize: 0, proof: []))
            #expect(again.status == 409 && again.body == "2\n")
            #expect(await restarted.addCheckpoint(Witness.request(for: try log.signedCheckpoint(), oldSize: 2, proof: [])).status == 200)
        }
    }

    @Test func aWitnessKeyIsReadBackAndABadOneIsRefused() throws {
        let verifier = try CosignatureVerifier(Self.cosigner.verifierKey)
        #expect(verifier.name == "witness.test/w1" && verifier.publicKey == Self.cosigner.publicKey)
        let parts = Self.cosigner.verifierKey.split(separator: "+")
        #expect(throws: EventLogError.self) { try CosignatureVerifier("other/w1+\(parts[1])+\(parts[2])") }
        #expect(throws: EventLogError.self) { try CosignatureVerifier("witness.test/w1+\(parts[1])") }
        #expect(throws: EventLogError.self) { try Cosigner(name: "has space", seed: Array(repeating: 1, count: 32)) }
        #expect(throws: EventLogError.self) { try Cosigner(name: "w", seed: [1, 2, 3]) }
    }
}
