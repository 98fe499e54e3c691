/// RFC 9162 §2.1 hashing: leaves are hashed with a 0x00 prefix (the record's leaf hash, FORMAT.md
/// §5.4), interior nodes as `SHA-256(0x01 ‖ left ‖ right)`.
public enum MerkleHash {
    /// `SHA-256(0x01 ‖ left ‖ right)`.
    public static func interior(_ left: [UInt8], _ right: [UInt8]) -> [UInt8] {
        var hash = SHA256()
        hash.update(byte: 1)
        hash.update(left)
        hash.update(right)
        return hash.digest()
    }

    /// The root of `count` leaf hashes (a power of two) laid end to end in `hashes`, which it
    /// overwrites: hashed pairwise in place, level by level, with no allocation per node.
    static func root(ofPerfect hashes: UnsafeMutableRawBufferPointer, count: Int) -> [UInt8] {
        precondition(count > 0 && count.nonzeroBitCount == 1 && hashes.count >= count * 32)
        var width = count
        withUnsafeTemporaryAllocation(byteCount: 65, alignment: 8) { input in
            input[0] = 1
            while width > 1 {
                for pair in 0..<(width / 2) {
                    input.baseAddress!.advanced(by: 1).copyMemory(from: hashes.baseAddress!.advanced(by: pair * 64), byteCount: 64)
                    SHA256.hash(UnsafeRawBufferPointer(input),
                                into: UnsafeMutableRawBufferPointer(rebasing: hashes[(pair * 32)..<(pair * 32 + 32)]))
                }
                width /= 2
            }
        }
        return Array(hashes[0..<32])
    }

    /// The root of the empty tree: `SHA-256()` of nothing.
    public static let empty = SHA256.hash([])

    /// The largest power of two smaller than `n` (n > 1): where RFC 9162 splits a tree of n leaves.
    static func split(_ n: UInt64) -> UInt64 {
        precondition(n > 1)
        return 1 << (63 - (n - 1).leadingZeroBitCount)
    }

    /// The root of `leaves` (leaf hashes), computed straight from RFC 9162's definition.
    public static func root(of leaves: ArraySlice<[UInt8]>) -> [UInt8] {
        switch leaves.count {
        case 0: return empty
        case 1: return leaves.first!
        default:
            let k = Int(split(UInt64(leaves.count)))
            return interior(root(of: leaves.prefix(k)), root(of: leaves.dropFirst(k)))
        }
    }
}

/// Inclusion and consistency proofs (RFC 9162 §2.1.3 and §2.1.4) over any source of subtree hashes,
/// and their verification.
public enum MerkleProof {
    /// The audit path of leaf `index` in the tree of the first `size` leaves (RFC 9162 §2.1.3.1);
    /// `node(lo, hi)` gives the hash of the leaves lo..<hi.
    public static func inclusion(of index: UInt64, size: UInt64, node: (UInt64, UInt64) throws -> [UInt8]) rethrows -> [[UInt8]] {
        precondition(index < size)
        var path: [[UInt8]] = []
        var (lo, hi, m) = (UInt64(0), size, index)
        while hi - lo > 1 {
            let k = MerkleHash.split(hi - lo)
            if m < k {
                path.append(try node(lo + k, hi))
                hi = lo + k
            } else {
                path.append(try node(lo, lo + k))
                lo += k
                m -= k
            }
        }
        return path.reversed()  // from the leaf up
    }

    /// The consistency proof between the trees of the first `oldSize` and `newSize` leaves
    /// (RFC 9162 §2.1.4.1); `node(lo, hi)` gives the hash of the leaves lo..<hi.
    public static func consistency(from oldSize: UInt64, to newSize: UInt64,
                                   node: (UInt64, UInt64) throws -> [UInt8]) rethrows -> [[UInt8]] {
        precondition(oldSize <= newSize)
        guard oldSize > 0, oldSize < newSize else { return [] }
        var proof: [[UInt8]] = []
        var (lo, hi, m, complete) = (UInt64(0), newSize, oldSize, true)
        while m != hi - lo {
            let k = MerkleHash.split(hi - lo)
            if m <= k {
                proof.append(try node(lo + k, hi))
                hi = lo + k
            } else {
                proof.append(try node(lo, lo + k))
                lo += k
                m -= k
                complete = false
            }
        }
        if !complete { proof.append(try node(lo, hi)) }
        return proof.reversed()
    }

    /// The root that an inclusion proof leads to (RFC 9162 §2.1.3.2), or nil when the proof is
    /// malformed for that index and size. The proof holds when this equals the trusted root.
    public static func root(fromInclusion path: [[UInt8]], leafHash: [UInt8], index: UInt64, size: UInt64) -> [UInt8]? {
        guard index < size else { return nil }
        var (fn, sn) = (index, size - 1)
        var r = leafHash
        for p in path {
            guard sn != 0 else { return nil }
            if fn & 1 == 1 || fn == sn {
                r = MerkleHash.interior(p, r)
                if fn & 1 == 0 {
                    while fn & 1 == 0 && fn != 0 {
                        fn >>= 1
                        sn >>= 1
                    }
                }
            } else {
                r = MerkleHash.interior(r, p)
            }
            fn >>= 1
            sn >>= 1
        }
        return sn == 0 ? r : nil
    }

    /// Whether `proof` shows the tree (`newSize`, `newRoot`) extends (`oldSize`, `oldRoot`)
    /// (RFC 9162 §2.1.4.2).
    public static func verifyConsistency(_ proof: [[UInt8]], oldSize: UInt64, oldRoot: [UInt8],
                                         newSize: UInt64, newRoot: [UInt8]) -> Bool {
        guard oldSize <= newSize else { return false }
        if oldSize == newSize { return proof.isEmpty && oldRoot == newRoot }
        if oldSize == 0 { return proof.isEmpty }
        var path = proof
        if oldSize.nonzeroBitCount == 1 { path.insert(oldRoot, at: 0) }  // a power of two
        guard !path.isEmpty else { return false }
        var (fn, sn) = (oldSize - 1, newSize - 1)
        while fn & 1 == 1 {
            fn >>= 1
            sn >>= 1
        }
        var (fr, sr) = (path[0], path[0])
        for c in path.dropFirst() {
            guard sn != 0 else { return false }
            if fn & 1 == 1 || fn == sn {
                fr = MerkleHash.interior(c, fr)
                sr = MerkleHash.interior(c, sr)
                if fn & 1 == 0 {
                    while fn & 1 == 0 && fn != 0 {
                        fn >>= 1
                        sn >>= 1
                    }
                }
            } else {
                sr = MerkleHash.interior(sr, c)
            }
            fn >>= 1
            sn >>= 1
        }
        return fr == oldRoot && sr == newRoot && sn == 0
    }
}
