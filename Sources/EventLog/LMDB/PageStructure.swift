internal import CLMDB
import Foundation

/// A check of the structure of an LMDB file, from the bytes alone, before LMDB reads its B-trees.
///
/// LMDB trusts its pages: it keeps no checksum, and a damaged page header (a node count, a node
/// offset, a child page number) can send it reading outside the page, into a crash. This walks every
/// B-tree of the snapshot (the free list, the main database, every named database, overflow pages)
/// and checks what LMDB would otherwise trust: each page's number, kind and bounds, each node inside
/// its page, each child and overflow page inside the file, no page reached twice, every leaf at the
/// depth its database records. It does not check record contents (the records' own hashes and tags
/// do) or key order. The layout read here is LMDB 0.9's (`mdb.c`: MDB_page, MDB_node, MDB_meta, MDB_db).
struct PageStructure {
    private static let headerBytes = 16
    private static let branch: UInt16 = 0x01, leaf: UInt16 = 0x02, overflow: UInt16 = 0x04, meta: UInt16 = 0x08
    /// Every flag a page of a SessionStore file carries on disk: the in-memory ones (dirty, loose,
    /// keep) are never written, and sub-pages and LEAF2 pages belong to duplicate-sorted databases,
    /// which a store does not have.
    private static let storedFlags = branch | leaf | overflow | meta
    private static let bigData: UInt16 = 0x01, subData: UInt16 = 0x02
    private static let invalidPage = UInt64.max

    private let bytes: UnsafeRawBufferPointer
    private let pageSize: Int
    private var lastPage: UInt64 = 0
    private var visited: [Bool] = []
    private(set) var problems: [String] = []

    /// The problems of the file at `path` as of the snapshot `transactionID` (a read transaction held
    /// while checking keeps its pages from being reused); the latest snapshot when nil. An empty list
    /// when the file is sound, or when that snapshot's meta page was already overwritten (nothing to
    /// judge by).
    static func problems(ofFileAt path: String, transactionID: UInt64? = nil) -> [String] {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else {
            return ["the data file \(path) cannot be read"]
        }
        return data.withUnsafeBytes { bytes in
            var check = PageStructure(bytes: bytes)
            check.run(transactionID: transactionID)
            return check.problems
        }
    }

    private init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        // The free database's md_pad holds the page size (in the first meta page, at 16 + 24).
        let stored = bytes.count >= 44 ? Int(bytes.loadUnaligned(fromByteOffset: 40, as: UInt32.self)) : 0
        pageSize = stored >= 512 && stored <= 65_536 && stored & (stored - 1) == 0 ? stored : 4096
    }

    private struct Database {
        var depth: UInt16
        var root: UInt64
    }

    private mutating func run(transactionID: UInt64?) {
        guard bytes.count >= 2 * pageSize else { return problem("the data file is shorter than its two meta pages") }
        let metas = (0..<2).compactMap { meta(at: $0) }
        guard !metas.isEmpty else { return problem("neither meta page of the data file is valid") }
        let chosen: (txnid: UInt64, lastPage: UInt64, free: Database, main: Database)
        if let transactionID {
            guard let match = metas.first(where: { $0.txnid == transactionID }) else { return }
            chosen = match
        } else {
            chosen = metas.max { $0.txnid < $1.txnid }!
        }
        lastPage = chosen.lastPage
        guard (Int(exactly: lastPage).map { ($0 + 1) * pageSize } ?? .max) <= bytes.count else {
            return problem("the meta page names page \(lastPage) as the last, beyond the end of the file (\(bytes.count / pageSize) pages)")
        }
        visited = [Bool](repeating: false, count: Int(lastPage) + 1)
        walk(chosen.free, "the free list")
        for (name, database) in walk(chosen.main, "the main database") where problems.isEmpty {
            walk(database, "database \(name)")
        }
    }

    private func meta(at index: Int) -> (txnid: UInt64, lastPage: UInt64, free: Database, main: Database)? {
        let base = index * pageSize
        guard word64(base) == UInt64(index), word16(base + 10) & Self.meta != 0,
              word32(base + 16) == 0xBEEF_C0DE, word32(base + 20) == 1 else { return nil }
        func database(_ offset: Int) -> Database { Database(depth: word16(offset + 6), root: word64(offset + 40)) }
        return (txnid: word64(base + 144), lastPage: word64(base + 136), free: database(base + 40), main: database(base + 88))
    }

    /// Walks a B-tree; returns the named databases among its leaves (for the main database).
    @discardableResult
    private mutating func walk(_ database: Database, _ what: String) -> [(String, Database)] {
        guard database.root != Self.invalidPage else { return [] }
        guard database.depth >= 1, database.depth <= 32 else {
            problem("\(what) records a depth of \(database.depth)")
            return []
        }
        var found: [(String, Database)] = []
        walkPage(database.root, depth: Int(database.depth), what, &found)
        return found
    }

    private mutating func walkPage(_ page: UInt64, depth: Int, _ what: String, _ found: inout [(String, Database)]) {
        guard problems.isEmpty else { return }
        guard let base = claim(page, what) else { return }
        let flags = word16(base + 10)
        let isBranch = flags & Self.branch != 0, isLeaf = flags & Self.leaf != 0
        guard isBranch != isLeaf, flags & (Self.overflow | Self.meta) == 0, flags & ~Self.storedFlags == 0 else {
            return problem("page \(page) of \(what) has the flags \(flags), neither a branch nor a leaf")
        }
        guard isLeaf == (depth == 1) else {
            return problem("page \(page) of \(what) is a \(isLeaf ? "leaf" : "branch") where the tree's depth wants a \(depth == 1 ? "leaf" : "branch")")
        }
        let lower = Int(word16(base + 12)), upper = Int(word16(base + 14))
        guard lower >= Self.headerBytes, lower % 2 == 0, lower <= upper, upper <= pageSize else {
            return problem("page \(page) of \(what) has free-space bounds \(lower)…\(upper) outside its \(pageSize) bytes")
        }
        let count = (lower - Self.headerBytes) / 2
        // Nodes are packed from the end of the page down to `upper`.
        var lowest = pageSize
        for slot in 0..<count { lowest = min(lowest, Int(word16(base + Self.headerBytes + 2 * slot))) }
        guard lowest == upper else {
            return problem("page \(page) of \(what) has its nodes from \(lowest) but records \(upper)")
        }
        for slot in 0..<count {
            let offset = Int(word16(base + Self.headerBytes + 2 * slot))
            guard offset >= upper, offset + 8 <= pageSize else {
                return problem("page \(page) of \(what): node \(slot) starts at \(offset), outside the page's nodes")
            }
            let node = base + offset
            let low = UInt64(word16(node)), high = UInt64(word16(node + 2)), nodeFlags = word16(node + 4)
            let keyBytes = Int(word16(node + 6))
            guard offset + 8 + keyBytes <= pageSize else {
                return problem("page \(page) of \(what): the key of node \(slot) runs past the page")
            }
            if isBranch {
                walkPage(low | high << 16 | UInt64(nodeFlags) << 32, depth: depth - 1, what, &found)
                continue
            }
            let dataBytes = Int(low | high << 16)
            let data = offset + 8 + keyBytes
            if nodeFlags & Self.bigData != 0 {
                guard data + 8 <= pageSize else { return problem("page \(page) of \(what): node \(slot) runs past the page") }
                checkOverflow(word64(base + data), holding: dataBytes, what)
            } else {
                guard data + dataBytes <= pageSize else {
                    return problem("page \(page) of \(what): the data of node \(slot) runs past the page")
                }
                if nodeFlags & Self.subData != 0, dataBytes == 48 {
                    let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(node + 8)..<(node + 8 + keyBytes)]), as: UTF8.self)
                    found.append((name, Database(depth: word16(base + data + 6), root: word64(base + data + 40))))
                }
            }
        }
    }

    private mutating func checkOverflow(_ page: UInt64, holding dataBytes: Int, _ what: String) {
        guard let base = claim(page, what) else { return }
        let count = UInt64(word32(base + 12))
        guard word16(base + 10) == Self.overflow, count >= 1,
              count * UInt64(pageSize) >= UInt64(dataBytes + Self.headerBytes), page + count - 1 <= lastPage else {
            return problem("overflow page \(page) of \(what) is not a run of pages holding its \(dataBytes) bytes")
        }
        for next in (page + 1)..<(page + count) where visited[Int(next)] {
            return problem("page \(next) of \(what) is reached twice")
        }
        for next in (page + 1)..<(page + count) { visited[Int(next)] = true }
    }

    /// The byte offset of `page`, marked as visited; nil (with a problem) when it is outside the file,
    /// a meta page, already reached, or does not carry its own number.
    private mutating func claim(_ page: UInt64, _ what: String) -> Int? {
        guard page >= 2, page <= lastPage else {
            problem("\(what) refers to page \(page), outside pages 2…\(lastPage)")
            return nil
        }
        guard !visited[Int(page)] else {
            problem("page \(page) of \(what) is reached twice")
            return nil
        }
        visited[Int(page)] = true
        let base = Int(page) * pageSize
        guard word64(base) == page else {
            problem("page \(page) of \(what) carries the number \(word64(base))")
            return nil
        }
        return base
    }

    private mutating func problem(_ text: String) {
        if problems.count < 10 { problems.append("the data file's structure is damaged: \(text)") }
    }

    private func word16(_ offset: Int) -> UInt16 { UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self)) }
    private func word32(_ offset: Int) -> UInt32 { UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
    private func word64(_ offset: Int) -> UInt64 { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
}
