/// Rebuilds the Merkle tree from the leaves in order, in O(log n) memory: the roots of the perfect
/// subtrees along the right edge. Says when it completes a subtree that the store keeps, so the kept
/// node can be checked against it.
struct MerkleRebuilder {
    private var frontier: [(level: Int, hash: [UInt8])] = []
    private(set) var size: UInt64 = 0

    /// Adds the next leaf; calls `completed` with each subtree of level ≥ ``MerkleNodes/storedLevel``
    /// it completes (level, index, hash).
    mutating func add(_ leaf: [UInt8], completed: (Int, UInt64, [UInt8]) throws -> Void) rethrows {
        try push(leaf, level: 0, completed: completed)
    }

    /// Adds leaves laid end to end, 32 bytes each, as ``add(_:completed:)`` would one by one. A run of
    /// 2^``MerkleNodes/storedLevel`` leaves that starts at a multiple of that is hashed in place, without an
    /// allocation per node.
    mutating func add(leaves: UnsafeRawBufferPointer, completed: (Int, UInt64, [UInt8]) throws -> Void) rethrows {
        let width = Int(MerkleNodes.chunk)
        let count = leaves.count / 32
        var index = 0
        while index < count {
            if size % UInt64(width) == 0, count - index >= width {
                let block = UnsafeRawBufferPointer(rebasing: leaves[(index * 32)..<((index + width) * 32)])
                let root = withUnsafeTemporaryAllocation(byteCount: block.count, alignment: 8) { scratch in
                    scratch.copyMemory(from: block)
                    return MerkleHash.root(ofPerfect: scratch, count: width)
                }
                try push(root, level: MerkleNodes.storedLevel, completed: completed)
                index += width
            } else {
                try push(Array(leaves[(index * 32)..<((index + 1) * 32)]), level: 0, completed: completed)
                index += 1
            }
        }
    }

    /// Adds the root of a perfect subtree of 2^`level` leaves (the tree's size a multiple of that), then
    /// joins equal subtrees along the right edge.
    private mutating func push(_ hash: [UInt8], level: Int, completed: (Int, UInt64, [UInt8]) throws -> Void) rethrows {
        frontier.append((level, hash))
        size += UInt64(1) << UInt64(level)
        if level >= MerkleNodes.storedLevel { try completed(level, size >> UInt64(level) - 1, hash) }
        while frontier.count >= 2, frontier[frontier.count - 1].level == frontier[frontier.count - 2].level {
            let right = frontier.removeLast()
            let left = frontier.removeLast()
            let level = right.level + 1
            let hash = MerkleHash.interior(left.hash, right.hash)
            frontier.append((level, hash))
            if level >= MerkleNodes.storedLevel { try completed(level, size >> UInt64(level) - 1, hash) }
        }
    }

    /// The root of the tree of the leaves added so far.
    var root: [UInt8] {
        guard var root = frontier.last?.hash else { return MerkleHash.empty }
        for node in frontier.dropLast().reversed() { root = MerkleHash.interior(node.hash, root) }
        return root
    }
}
