import Foundation

/// A store's disk as a power cut would leave it.
///
/// A process started with ``environment`` runs under tools/powerloss/interposer.c, which journals
/// which bytes of the store's `data.mdb*` files were made durable (fsync, fdatasync, O_DSYNC writes,
/// a directory fsync for renames) and which writes were only handed to the kernel. After the
/// process is killed, ``cutPower(_:using:)`` rewrites the store's files as the disk could hold them
/// after a power loss. A SIGKILL alone proves little: the kernel still writes a killed process's
/// page cache to disk.
public struct PowerLossDisk {
    /// What became of the writes that were not yet durable.
    public enum Mode: String, CustomStringConvertible, Sendable {
        /// Every write not made durable is lost.
        case unsyncedWritesLost
        /// A random subset of the pages not made durable reached the disk, one of them torn at a
        /// 512-byte boundary (a sector is written whole or not at all).
        case someUnsyncedPagesKeptOneTorn

        public var description: String { rawValue }
    }

    /// What ``cutPower(_:using:)`` did, for failure messages.
    public struct Outcome: CustomStringConvertible {
        public var files: [String] = []
        public var unsyncedPages = 0
        public var keptPages = 0
        public var tornPage: (offset: Int, keptBytes: Int)?

        public var description: String {
            var text = "files \(files.joined(separator: ", ")); \(unsyncedPages) unsynced pages, \(keptPages) kept"
            if let tornPage { text += ", page at \(tornPage.offset) torn after \(tornPage.keptBytes) bytes" }
            return text
        }
    }

    public let storePath: String
    public let journal: URL

    /// A disk for the store at `storePath`, journaling into `journal` (created empty). The store's
    /// files as they are now count as durable.
    public init(storePath: String, journal: URL) throws {
        self.storePath = storePath
        self.journal = journal
        try? FileManager.default.removeItem(at: journal)
        try FileManager.default.createDirectory(at: journal, withIntermediateDirectories: true)
    }

    /// The variables that run a child process under the journal.
    public func variables() throws -> [String: String] {
        ["LD_PRELOAD": try Self.interposer.get(),
         "POWERLOSS_STORE": URL(fileURLWithPath: storePath).standardizedFileURL.path,
         "POWERLOSS_JOURNAL": journal.path]
    }

    /// This process's environment with ``variables()``.
    public func environment() throws -> [String: String] {
        ProcessInfo.processInfo.environment.merging(try variables()) { $1 }
    }

    /// Replaces the store's files with what a power loss now could leave, and starts a new journal
    /// (the store as rewritten is the durable state from here on).
    @discardableResult
    public func cutPower<G: RandomNumberGenerator>(_ mode: Mode, using generator: inout G) throws -> Outcome {
        var outcome = Outcome()
        // No listing: the process was killed before it opened a file, so it wrote nothing.
        guard let listing = try? String(contentsOf: journal.appendingPathComponent("directory"), encoding: .utf8) else {
            return outcome
        }
        var images: [(name: String, bytes: [UInt8])] = []
        for line in listing.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let number = Int(parts[1]) else { throw PowerLossError("bad directory journal line \(line)") }
            let image = try durableImage(of: number, mode, &outcome, using: &generator)
            images.append((String(parts[0]), image))
            outcome.files.append("\(parts[0]) (\(image.count) bytes)")
        }
        let fileManager = FileManager.default
        for name in try fileManager.contentsOfDirectory(atPath: storePath) where name.hasPrefix("data.mdb") {
            try fileManager.removeItem(atPath: storePath + "/" + name)
        }
        for (name, bytes) in images {
            try Data(bytes).write(to: URL(fileURLWithPath: storePath + "/" + name))
        }
        try fileManager.removeItem(at: journal)
        try fileManager.createDirectory(at: journal, withIntermediateDirectories: true)
        return outcome
    }

    private struct Write {
        var offset: Int
        var bytes: ArraySlice<UInt8>
        var durable: Bool
        var end: Int  // where the record ends in the pending journal
    }

    private func durableImage<G: RandomNumberGenerator>(of number: Int, _ mode: Mode, _ outcome: inout Outcome,
                                                        using generator: inout G) throws -> [UInt8] {
        var image = try [UInt8](Data(contentsOf: journal.appendingPathComponent("\(number).durable")))
        let pending = (try? [UInt8](Data(contentsOf: journal.appendingPathComponent("\(number).pending")))) ?? []
        // A sync that returned while its writes were being moved into the durable file: they are durable.
        let syncedLength = (try? String(contentsOf: journal.appendingPathComponent("\(number).synced"), encoding: .utf8))
            .flatMap { Int($0) } ?? 0
        var unsynced: [(offset: Int, bytes: ArraySlice<UInt8>)] = []
        for write in Self.parse(pending) {
            if write.durable || write.end <= syncedLength {
                Self.apply(write.bytes, at: write.offset, to: &image)
                continue
            }
            // Split into pages: each page of a write reaches the disk or not on its own.
            var offset = write.offset
            var rest = write.bytes
            while !rest.isEmpty {
                let pageEnd = (offset / 4096 + 1) * 4096
                let take = min(rest.count, pageEnd - offset)
                unsynced.append((offset, rest.prefix(take)))
                rest = rest.dropFirst(take)
                offset += take
            }
        }
        outcome.unsyncedPages += unsynced.count
        guard mode == .someUnsyncedPagesKeptOneTorn, !unsynced.isEmpty else { return image }
        let kept = unsynced.indices.filter { _ in Bool.random(using: &generator) }
        let torn = kept.filter { unsynced[$0].bytes.count > 512 }.randomElement(using: &generator)
        for index in kept {
            let offset = unsynced[index].offset
            var bytes = unsynced[index].bytes
            if index == torn {
                let sectors = Int.random(in: 1...((bytes.count - 1) / 512), using: &generator)
                bytes = bytes.prefix(sectors * 512)
                outcome.tornPage = (offset, bytes.count)
            }
            Self.apply(bytes, at: offset, to: &image)
        }
        outcome.keptPages += kept.count
        return image
    }

    /// The pending journal's records; a record cut short by the kill is dropped (its write is lost).
    private static func parse(_ journal: [UInt8]) -> [Write] {
        var writes: [Write] = []
        var at = 0
        func word(_ offset: Int) -> Int {
            Int(journal[offset..<offset + 8].enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) })
        }
        while at + 24 <= journal.count {
            let offset = word(at), length = word(at + 8), flags = word(at + 16)
            guard at + 24 + length <= journal.count else { break }
            writes.append(Write(offset: offset, bytes: journal[at + 24..<at + 24 + length], durable: flags & 1 != 0,
                                end: at + 24 + length))
            at += 24 + length
        }
        return writes
    }

    private static func apply(_ bytes: ArraySlice<UInt8>, at offset: Int, to image: inout [UInt8]) {
        if image.count < offset + bytes.count { image += [UInt8](repeating: 0, count: offset + bytes.count - image.count) }
        image.replaceSubrange(offset..<offset + bytes.count, with: bytes)
    }

    /// The interposer, compiled once per test run beside the test bundle.
    static let interposer: Result<String, Error> = Result {
        let source = RepositoryFixtures.root.deletingLastPathComponent().appendingPathComponent("tools/powerloss/interposer.c").path
        let library = BuiltProducts.url("libpowerloss-interposer.so").path
        let building = library + ".\(getpid())"
        let compiled = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"),
                                            ["cc", "-shared", "-fPIC", "-O2", "-Wall", "-Wno-format-truncation", "-o", building,
                                             source, "-ldl", "-lpthread"])
        guard compiled.status == 0, !compiled.signalled else { throw PowerLossError("cannot compile \(source): \(compiled.stderr)") }
        guard rename(building, library) == 0 else { throw PowerLossError("cannot move \(building) into place") }
        return library
    }
}

public struct PowerLossError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
