@testable import EventLog
import Foundation
import Testing
import TestSupport

/// RFC 9162 §2.1, written out again here from the RFC's text, independently of the library's tree.
enum RFC9162 {
    static func hashChildren(_ left: [UInt8], _ right: [UInt8]) -> [UInt8] { SHA256.hash([1] + left + right) }

    /// MTH(D[n]): the largest power of two k < n splits the list.
    static func mth(_ leaves: ArraySlice<[UInt8]>) -> [UInt8] {
        if leaves.isEmpty { return SHA256.hash([]) }
        if leaves.count == 1 { return leaves.first! }
        var k = 1
        while k * 2 < leaves.count { k *= 2 }
        return hashChildren(mth(leaves.prefix(k)), mth(leaves.dropFirst(k)))
    }

    /// §2.1.3.2: verifying an inclusion proof.
    static func verifyInclusion(leafIndex: UInt64, treeSize: UInt64, leafHash: [UInt8], path: [[UInt8]], root: [UInt8]) -> Bool {
        if leafIndex >= treeSize { return false }
        var fn = leafIndex, sn = treeSize - 1, r = leafHash
        for p in path {
            if sn == 0 { return false }
            if fn % 2 == 1 || fn == sn {
                r = hashChildren(p, r)
                if fn % 2 == 0 { repeat { fn >>= 1; sn >>= 1 } while fn % 2 == 0 && fn != 0 }
            } else {
                r = hashChildren(r, p)
            }
            fn >>= 1
            sn >>= 1
        }
        return sn == 0 && r == root
    }

    /// §2.1.4.2: verifying a consistency proof.
    static func verifyConsistency(first: UInt64, second: UInt64, firstHash: [UInt8], secondHash: [UInt8], proof: [[UInt8]]) -> Bool {
        if first == second { return proof.isEmpty && firstHash == secondHash }
        if first == 0 || first > second || proof.isEmpty && first & (first - 1) != 0 { return false }
        var path = proof
        if first & (first - 1) == 0 { path.insert(firstHash, at: 0) }
        var fn = first - 1, sn = second - 1
        while fn & 1 == 1 { fn >>= 1; sn >>= 1 }
        var fr = path[0], sr = path[0]
        for c in path.dropFirst() {
            if sn == 0 { return false }
            if fn & 1 == 1 || fn == sn {
                fr = hashChildren(c, fr)
                sr = hashChildren(c, sr)
                if fn & 1 == 0 { repeat { fn >>= 1; sn >>= 1 } while fn & 1 == 0 && fn != 0 }
            } else {
                sr = hashChildren(sr, c)
            }
            fn >>= 1
            sn >>= 1
        }
        return fr == firstHash && sr == secondHash && sn == 0
    }
}

@Suite struct MerkleTreeTests {
    /// A store of `count` records appended in batches of varying sizes (so chunk boundaries fall
    /// inside and between transactions), and their leaf hashes as stored.
    /// A store of `count` events appended in groups of 1 to 37 to new streams: in blocks, and one record on its own
    /// (position 0), unless `blockBodyBytes` is 0 (each record on its own).
    static func store(_ store: TemporaryStore, count: Int,
                      blockBodyBytes: Int = EventLogOptions().blockBodyBytes) async throws -> (EventLog, [[UInt8]]) {
        var options = EventLogOptions()
        options.durable = false
        options.blockBodyBytes = blockBodyBytes
        let log = try store.create(options)
        var appended = 0
        var batch = 1
        while appended < count {
            let size = min(batch, count - appended)
            try await log.append((0..<size).map { event("leaf \(appended + $0)") }, to: StreamID())
            appended += size
            batch = batch % 37 + 3
        }
        let leaves = try (0..<UInt64(count)).map { try log.provableRecord(at: $0) }.map { Array($0.record[60..<92]) }
        return (log, leaves)
    }

    @Test func theRootOfEverySizeFromOneToAThousandIsTheRFCsRecursiveHash() async throws {
        try await withTemporaryStore { temporary in
            let (log, leaves) = try await Self.store(temporary, count: 1000)
            for size in 1...1000 {
                #expect(try log.treeHead(size: UInt64(size)).rootHash == RFC9162.mth(leaves[0..<size]), "size \(size)")
            }
            #expect(try log.treeHead().size == 1000)
            #expect(try log.treeHead(size: 0).rootHash == SHA256.hash([]))
        }
    }

    @Test func consistencyProofsBetweenEveryPairOfSizesUpTo64VerifyByTheRFC() async throws {
        try await withTemporaryStore { temporary in
            let (log, leaves) = try await Self.store(temporary, count: 64)
            for second in 1...64 {
                let secondHash = RFC9162.mth(leaves[0..<second])
                for first in 1...second {
                    let proof = try log.consistencyProof(from: UInt64(first), to: UInt64(second))
                    let firstHash = RFC9162.mth(leaves[0..<first])
                    #expect(RFC9162.verifyConsistency(first: UInt64(first), second: UInt64(second), firstHash: firstHash,
                                                      secondHash: secondHash, proof: proof), "\(first) → \(second)")
                    #expect(MerkleProof.verifyConsistency(proof, oldSize: UInt64(first), oldRoot: firstHash,
                                                          newSize: UInt64(second), newRoot: secondHash))
                    if first < second, first > 1 {  // a proof against the wrong old root fails
                        #expect(!RFC9162.verifyConsistency(first: UInt64(first), second: UInt64(second),
                                                           firstHash: RFC9162.mth(leaves[0..<(first - 1)]), secondHash: secondHash, proof: proof))
                    }
                }
            }
        }
    }

    @Test func proofsOverStoredSubtreesVerifyAcrossChunkBoundaries() async throws {
        try await withTemporaryStore { temporary in
            let (log, leaves) = try await Self.store(temporary, count: 1100)
            let sizes: [UInt64] = [1, 255, 256, 257, 511, 512, 513, 768, 1023, 1024, 1025, 1100]
            for second in sizes {
                let secondHash = RFC9162.mth(leaves[0..<Int(second)])
                for first in sizes where first <= second {
                    let proof = try log.consistencyProof(from: first, to: second)
                    #expect(RFC9162.verifyConsistency(first: first, second: second, firstHash: RFC9162.mth(leaves[0..<Int(first)]),
                                                      secondHash: secondHash, proof: proof), "\(first) → \(second)")
                }
                for index in [0, second / 3, second / 2, second - 1] {
                    let path = try log.inclusionProof(position: index, treeSize: second)
                    #expect(RFC9162.verifyInclusion(leafIndex: index, treeSize: second, leafHash: leaves[Int(index)], path: path, root: secondHash))
                    #expect(MerkleProof.root(fromInclusion: path, leafHash: leaves[Int(index)], index: index, size: second) == secondHash)
                    #expect(!RFC9162.verifyInclusion(leafIndex: index, treeSize: second, leafHash: SHA256.hash([9]), path: path, root: secondHash))
                }
            }
        }
    }

    @Test func everyInclusionProofInATreeOf100VerifiesAndARecordRecomputesItsOwnLeaf() async throws {
        try await withTemporaryStore { temporary in
            let (log, leaves) = try await Self.store(temporary, count: 100)
            let root = RFC9162.mth(leaves[...])
            for index in 0..<UInt64(100) {
                let record = try log.provableRecord(at: index)
                #expect(record.leafHash == leaves[Int(index)])
                let path = try log.inclusionProof(position: index, treeSize: 100)
                #expect(RFC9162.verifyInclusion(leafIndex: index, treeSize: 100, leafHash: record.leafHash, path: path, root: root))
            }
        }
    }

    @Test func aSignedCheckpointVerifiesWithThePublicKeyAndNotOnceAltered() async throws {
        try await withTemporaryStore { temporary in
            let (log, leaves) = try await Self.store(temporary, count: 10)
            let checkpoint = try log.signedCheckpoint()
            let lines = checkpoint.text.split(separator: "\n", omittingEmptySubsequences: false)
            try #require(lines.count >= 6, "\(checkpoint.text)")
            #expect(lines[0] == "sessionstore/\(log.storeID.uuidString.lowercased())")
            #expect(lines[1] == "10" && lines[2] == Substring(Data(RFC9162.mth(leaves[...])).base64EncodedString()))
            #expect(lines[3] == "" && lines[4].hasPrefix("— sessionstore/") && lines[5] == "")
            let read = try Checkpoint.verified(checkpoint.text, verifierKey: log.checkpointVerifierKey)
            #expect(read == checkpoint)
            let altered = checkpoint.text.replacingOccurrences(of: "\n10\n", with: "\n9\n")
            #expect(throws: EventLogError.self) { try Checkpoint.verified(altered, verifierKey: log.checkpointVerifierKey) }
            try await withTemporaryStore { other in
                let foreign = try other.create()
                #expect(throws: EventLogError.self) { try Checkpoint.verified(checkpoint.text, verifierKey: foreign.checkpointVerifierKey) }
            }
        }
    }

    /// Rewrites the store after closing it, as someone holding the files or the database (and the keys) could.
    static func tamper(_ temporary: TemporaryStore, _ body: (StoreTransaction) throws -> Void) throws {
        try StoreEnvironment.open(temporary.storePath, .existing, options: .testing).write(body)
    }

    @Test(arguments: ["changed", "removed", "reordered", "truncated", "node"])
    func verifyWithAnAnchorDetectsARewrittenLog(_ tampering: String) async throws {
        try await withTemporaryStore { temporary in
            let checkpoint = try await {
                let (log, _) = try await Self.store(temporary, count: 600)
                let checkpoint = try log.signedCheckpoint(size: 520)
                #expect(try log.verify(anchor: checkpoint).anchorConsistent == true)
                try log.close()
                return checkpoint
            }()
            try Self.tamper(temporary) { txn in
                func record(_ position: UInt64) throws -> [UInt8] { Array(try txn.get(StoreLayout.events, StoreLayout.positionKey(position))!) }
                switch tampering {
                case "changed":  // a byte of ciphertext changed and the leaf hash recomputed to match it (BlockTests: a block's)
                    var provable = ProvableRecord(position: 0, record: try record(0), nonce: [])
                    var cursor = NonceBaseCursor()
                    provable.nonce = try cursor.base(for: 0, in: txn)!.withNonce(for: 0) { Array($0) }
                    provable.record[100] ^= 1
                    provable.record.replaceSubrange(60..<92, with: provable.leafHash)
                    try txn.put(StoreLayout.events, StoreLayout.positionKey(0), provable.record)
                case "removed":
                    for position in UInt64(300)..<600 { try txn.delete(StoreLayout.events, StoreLayout.positionKey(position)) }
                case "reordered":
                    let (a, b) = (try record(10), try record(11))
                    try txn.put(StoreLayout.events, StoreLayout.positionKey(10), b)
                    try txn.put(StoreLayout.events, StoreLayout.positionKey(11), a)
                case "truncated":
                    for position in UInt64(510)..<600 { try txn.delete(StoreLayout.events, StoreLayout.positionKey(position)) }
                default:  // a kept tree node rewritten
                    try txn.put(StoreLayout.merkle, MerkleNodes.key(level: 8, index: 1), SHA256.hash([1]))
                }
            }
            let report = try temporary.open().verify(anchor: checkpoint)
            #expect(!report.isIntact)
            if tampering != "node" {
                #expect(report.anchorConsistent == false, "\(report.problems.map(\.message))")
            } else {
                #expect(report.problems.contains { $0.message.contains("Merkle tree node at level 8 index 1") })
            }
        }
    }

    /// `verify` hashes whole blocks of 256 leaves at once: the nodes it completes and the roots it reaches must be
    /// those of adding the leaves one by one, however the leaves arrive.
    @Test func addingLeavesByTheBlockCompletesTheSameNodesAndRootsAsOneByOne() {
        var random = SystemRandomNumberGenerator()
        let leaves = (0..<2_000).map { _ in (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) } }
        var single = MerkleRebuilder()
        var singleNodes: [String] = []
        var roots: [UInt64: [UInt8]] = [:]
        for leaf in leaves {
            single.add(leaf) { level, index, hash in singleNodes.append("\(level)/\(index)/\(hash)") }
            roots[single.size] = single.root
        }
        for pieces in [[2_000], [1, 255, 256, 700, 788], [300, 212, 1_024, 464], [256, 256, 1, 1, 1_486]] {
            var blocks = MerkleRebuilder()
            var blockNodes: [String] = []
            var start = 0
            for count in pieces {
                let bytes = leaves[start..<(start + count)].flatMap { $0 }
                bytes.withUnsafeBytes { blocks.add(leaves: $0) { level, index, hash in blockNodes.append("\(level)/\(index)/\(hash)") } }
                start += count
                #expect(blocks.size == UInt64(start))
                #expect(blocks.root == roots[UInt64(start)], "pieces \(pieces), after \(start) leaves")
            }
            #expect(blockNodes == singleNodes, "pieces \(pieces)")
        }
    }

    @Test(arguments: [256, 300, 700, 1_024, 1_100])
    func verifyTakesTheAnchorsRootWhereverItFallsInABlock(_ size: Int) async throws {
        try await withTemporaryStore { temporary in
            let (log, _) = try await Self.store(temporary, count: 1_100)
            let report = try log.verify(anchor: try log.signedCheckpoint(size: UInt64(size)))
            #expect(report.isIntact && report.anchorConsistent == true, "\(report.problems.map(\.message))")
        }
    }
}
