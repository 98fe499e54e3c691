/// Rebuilds the Merkle tree from the leaves in order, in O(log n) memory: the roots of the perfect
/// subtrees along the right edge. Says when it completes a subtree that the store keeps, so the kept
/// node can be checked against it.
struct MerkleRebuilder {
    private var frontier: [(level: Int, hash: [UInt8])] = []
    private(set) var size: UInt64 = 0

    /// Adds the next leaf; calls `completed` with each subtree of level ≥ ``MerkleNodes/storedLevel``
    /// it completes (level, index, hash).
    mutating func add(_ leaf: [UInt8], completed: (Int, UInt64, [UInt8]) throws -> Void) rethrows {
        frontier.append((0, leaf))
        size += 1
        while frontier.count >= 2, frontier[frontier.count - 1].level == frontier[frontier.count - 2].level {
            let right = frontier.removeLast()
            let left = frontier.removeLast()
            let level = right.level + 1
            let hash = MerkleHash.interior(left.hash, right.hash)
            frontier.append((level, hash))
            if level >= MerkleNodes.storedLevel { try completed(level, size / (UInt64(1) << UInt64(level)) - 1, hash) }
        }
    }

    /// The root of the tree of the leaves added so far.
    var root: [UInt8] {
        guard var root = frontier.last?.hash else { return MerkleHash.empty }
        for node in frontier.dropLast().reversed() { root = MerkleHash.interior(node.hash, root) }
        return root
    }
}
