import Crypto
import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One file of the outbox: a header, then frames, each a record sealed with ChaCha20-Poly1305 under the outbox key
/// and bound to its segment and offset (docs/CLIENT-FORMAT.md). Appends go at the end and are synced before they
/// return; a file is deleted whole once nothing in it is still needed.
final class OutboxSegment {
    static let magic = Data("SSOUTBOX".utf8)
    static let version: UInt32 = 1
    /// Magic, version, segment number, first sequence, then the key check (an empty plaintext sealed).
    static let headerSize = 8 + 4 + 8 + 8 + 28
    static let sealOverhead = 12 + 16

    private(set) var number: UInt64
    private(set) var firstSequence: UInt64
    let url: URL
    private let descriptor: Int32
    private(set) var size: Int

    private init(number: UInt64, firstSequence: UInt64, url: URL, descriptor: Int32, size: Int) {
        self.number = number
        self.firstSequence = firstSequence
        self.url = url
        self.descriptor = descriptor
        self.size = size
    }

    deinit { close(descriptor) }

    static func fileName(_ number: UInt64) -> String {
        "segment-" + String(format: "%016llx", number) + ".outbox"
    }

    /// The segment number a file name gives, or nil for a file that is not a segment.
    static func number(ofFile name: String) -> UInt64? {
        guard name.hasPrefix("segment-"), name.hasSuffix(".outbox") else { return nil }
        let hex = name.dropFirst("segment-".count).dropLast(".outbox".count)
        guard hex.count == 16 else { return nil }
        return UInt64(hex, radix: 16)
    }

    /// The suffix of a segment being created: its header is written and synced under this name, then it is renamed,
    /// so that a kill mid-creation leaves no segment without its header (such a file is deleted on open).
    static let partialSuffix = ".partial"

    /// A new, empty segment, synced with its directory entry before it is used.
    static func create(in directory: URL, number: UInt64, firstSequence: UInt64, key: OutboxKey) throws -> OutboxSegment {
        let url = directory.appendingPathComponent(fileName(number))
        let partial = directory.appendingPathComponent(fileName(number) + partialSuffix)
        unlink(partial.path)
        let descriptor = Glibc_open(partial.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw ioError("create", partial) }
        var header = Data()
        header.append(magic)
        header.appendBigEndian(version)
        header.appendBigEndian(number)
        header.appendBigEndian(firstSequence)
        let check: ChaChaPoly.SealedBox
        do { check = try ChaChaPoly.seal(Data(), using: key.key, authenticating: header) } catch {
            close(descriptor)
            throw ClientError(.outboxIO, "cannot seal the key check of \(url.path)", underlying: error)
        }
        header.append(check.combined)
        let segment = OutboxSegment(number: number, firstSequence: firstSequence, url: url, descriptor: descriptor, size: 0)
        try segment.write(header, at: 0)
        try segment.sync()
        guard rename(partial.path, url.path) == 0 else { throw ioError("rename \(partial.lastPathComponent) to", url) }
        try syncDirectory(directory)
        segment.size = header.count
        return segment
    }

    /// An existing segment, its header checked against `key`.
    static func open(_ url: URL, key: OutboxKey) throws -> OutboxSegment {
        let descriptor = Glibc_open(url.path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw ioError("open", url) }
        let segment = OutboxSegment(number: 0, firstSequence: 0, url: url, descriptor: descriptor,
                                    size: Int(max(lseek(descriptor, 0, SEEK_END), 0)))
        guard segment.size >= headerSize else {
            throw ClientError(.outboxDamaged, "the outbox file \(url.path) is shorter than its header (\(segment.size) bytes)")
        }
        let header = try segment.read(at: 0, count: headerSize)
        var reader = ByteReader(header)
        guard header.prefix(8) == magic, reader.skip(8), reader.uint32() == version, let number = reader.uint64(), let first = reader.uint64() else {
            throw ClientError(.outboxDamaged, "the outbox file \(url.path) does not begin with an outbox header")
        }
        do {
            _ = try ChaChaPoly.open(ChaChaPoly.SealedBox(combined: header.suffix(28)), using: key.key, authenticating: header.prefix(headerSize - 28))
        } catch {
            throw ClientError(.wrongOutboxKey, "the key given does not open the outbox file \(url.path)")
        }
        segment.number = number
        segment.firstSequence = first
        return segment
    }

    /// Seals `record`, writes it at the end and syncs; returns the frame's offset and length.
    func append(_ record: OutboxRecord, key: OutboxKey, sync shouldSync: Bool) throws -> (offset: Int, length: Int) {
        try append(plain: record.bytes, key: key, sync: shouldSync)
    }

    /// ``append(_:key:sync:)`` of a record's bytes already made.
    func append(plain: Data, key: OutboxKey, sync shouldSync: Bool) throws -> (offset: Int, length: Int) {
        let offset = size
        let sealed: Data
        do { sealed = try ChaChaPoly.seal(plain, using: key.key, authenticating: Self.binding(number, offset)).combined } catch {
            throw ClientError(.outboxIO, "cannot seal a record of \(url.path)", underlying: error)
        }
        var frame = Data(capacity: 4 + sealed.count)
        frame.appendBigEndian(UInt32(sealed.count))
        frame.append(sealed)
        try write(frame, at: offset)
        if shouldSync { try sync() }
        size += frame.count
        return (offset, frame.count)
    }

    /// The record of the frame at `offset`.
    func record(at offset: Int, length: Int, key: OutboxKey) throws -> OutboxRecord {
        let frame = try read(at: offset, count: length)
        guard let record = Self.open(frame: frame, segment: number, offset: offset, key: key) else {
            throw ClientError(.outboxDamaged, "the record at byte \(offset) of \(url.path) fails its check")
        }
        return record
    }

    /// Every record from the header on, with its frame. A frame that fails its check is a torn last write when it is
    /// in the last segment and is its last (it runs past the end, ends at it, or only zeros follow, as when a file
    /// system grew the file before the crash): the file is cut there, and synced. Anywhere else it is damage.
    func scan(key: OutboxKey, isLast: Bool, _ body: (OutboxRecord, _ offset: Int, _ length: Int) throws -> Void) throws {
        var offset = Self.headerSize
        while offset < size {
            let remaining = size - offset
            var length: Int?
            if remaining >= 4 {
                var reader = ByteReader(try read(at: offset, count: 4))
                length = reader.uint32().map { Int($0) + 4 }
            }
            if let length, length <= remaining, length >= 4 + Self.sealOverhead,
               let record = Self.open(frame: try read(at: offset, count: length), segment: number, offset: offset, key: key) {
                try body(record, offset, length)
                offset += length
                continue
            }
            let runsToTheEnd = length.map { offset + $0 >= size } ?? true
            let tornAtTheEnd = try runsToTheEnd || read(at: offset, count: remaining).allSatisfy { $0 == 0 }
            guard isLast, tornAtTheEnd else {
                throw ClientError(.outboxDamaged, "the record at byte \(offset) of \(url.path) fails its check, and records follow it")
            }
            guard ftruncate(descriptor, off_t(offset)) == 0 else { throw Self.ioError("cut the torn last record of", url) }
            try sync()
            size = offset
        }
    }

    func sync() throws {
        #if canImport(Darwin)
        // fsync on Apple platforms leaves data in the drive's cache; F_FULLFSYNC reaches the medium.
        if fcntl(descriptor, F_FULLFSYNC) == 0 { return }
        #endif
        guard fsync(descriptor) == 0 else { throw Self.ioError("sync", url) }
    }

    private static func binding(_ number: UInt64, _ offset: Int) -> Data {
        var data = Data()
        data.appendBigEndian(number)
        data.appendBigEndian(UInt64(offset))
        return data
    }

    private static func open(frame: Data, segment: UInt64, offset: Int, key: OutboxKey) -> OutboxRecord? {
        guard frame.count >= 4 + sealOverhead,
              let box = try? ChaChaPoly.SealedBox(combined: frame.dropFirst(4)),
              let plain = try? ChaChaPoly.open(box, using: key.key, authenticating: binding(segment, offset)) else { return nil }
        return OutboxRecord(plain)
    }

    private func write(_ data: Data, at offset: Int) throws {
        try data.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let written = pwrite(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { throw Self.ioError("write", url) }
                done += written
            }
        }
    }

    private func read(at offset: Int, count: Int) throws -> Data {
        var data = Data(count: count)
        try data.withUnsafeMutableBytes { buffer in
            var done = 0
            while done < count {
                let got = pread(descriptor, buffer.baseAddress! + done, count - done, off_t(offset + done))
                if got < 0, errno == EINTR { continue }
                guard got > 0 else { throw Self.ioError("read", url) }
                done += got
            }
        }
        return data
    }

    static func syncDirectory(_ directory: URL) throws {
        let descriptor = Glibc_open(directory.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ioError("open the directory", directory) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw ioError("sync the directory", directory) }
    }

    static func ioError(_ verb: String, _ url: URL) -> ClientError {
        ClientError(.outboxIO, "cannot \(verb) \(url.path): \(String(cString: strerror(errno)))")
    }
}

/// POSIX `open` with a mode, callable where `OutboxSegment.open` shadows it.
private func Glibc_open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
    #if canImport(Darwin)
    return Darwin.open(path, flags, mode)
    #elseif canImport(Glibc)
    return Glibc.open(path, flags, mode)
    #else
    return Musl.open(path, flags, mode)
    #endif
}

extension ByteReader {
    mutating func skip(_ count: Int) -> Bool {
        for _ in 0..<count where byte() == nil { return false }
        return true
    }
}
