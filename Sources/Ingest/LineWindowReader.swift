import EventLog
import Failures
import Foundation

/// Where an ingest's NDJSON comes from.
public enum IngestSource: Sendable {
    /// A file, read a window at a time: memory does not grow with its size.
    case file(URL)
    /// Bytes already in memory.
    case bytes(Data)
    /// An open stream such as standard input, read once from where it stands, a window at a time;
    /// `name` names it in messages ("stdin"). It is not closed.
    case stream(FileHandle, name: String)

    /// Its size, when known.
    var byteCount: Int? {
        switch self {
        case .bytes(let data): data.count
        case .file(let url): (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? nil
        case .stream: nil
        }
    }
}

/// The input of an ingest could not be read (nothing was appended).
public struct IngestSourceError: CodedError, Sendable {
    public var code: ErrorCode<IngestSourceError> { .unreadable }
    /// "cannot read PATH: REASON"
    public var message: String
}

extension ErrorCode where Domain == IngestSourceError {
    /// The file or stream cannot be read.
    public static let unreadable = Self("unreadable", .invalidData)
}

/// Reads NDJSON lines a window at a time: each line without its line end (LF or CRLF), with its
/// 1-based number; blank lines are counted but left out.
struct LineWindowReader {
    typealias Line = (number: Int, bytes: Data)

    private let handle: FileHandle?
    /// Whether the reader opened `handle` (and closes it at the end).
    private let ownsHandle: Bool
    private let path: String
    private var buffer: [UInt8]
    /// Where the unread bytes of `buffer` start.
    private var start = 0
    private var atEnd: Bool
    private var lineNumber = 0
    /// Bytes of the source taken into lines so far, line ends included.
    private(set) var bytesRead = 0
    /// The source's size, when known.
    let totalBytes: Int?

    private let blockSize: Int

    init(_ source: IngestSource, blockSize: Int = 4 << 20) throws {
        self.blockSize = blockSize
        switch source {
        case .bytes(let data):
            handle = nil
            ownsHandle = false
            path = "the input"
            buffer = [UInt8](data)
            atEnd = true
            totalBytes = source.byteCount
        case .file(let url):
            do {
                handle = try FileHandle(forReadingFrom: url)
            } catch {
                throw IngestSourceError(message: "cannot read \(url.path): \(fileErrorReason(error))")
            }
            ownsHandle = true
            path = url.path
            buffer = []
            atEnd = false
            totalBytes = source.byteCount
        case .stream(let stream, let name):
            handle = stream
            ownsHandle = false
            path = name
            buffer = []
            atEnd = false
            totalBytes = nil
        }
    }

    /// The next lines, at least one unless the source is exhausted (then nil), at most `maxLines`
    /// and about `maxBytes` of them.
    mutating func next(maxLines: Int = 4096, maxBytes: Int = 8 << 20) throws -> [Line]? {
        var lines: [Line] = []
        var bytes = 0
        while lines.count < maxLines, bytes < maxBytes {
            guard let (content, consumed) = nextLineRange() else {
                if atEnd { break }
                try readBlock()
                continue
            }
            lineNumber += 1
            bytesRead += consumed
            bytes += consumed
            if let content { lines.append((lineNumber, Data(buffer[content]))) }
        }
        return lines.isEmpty && atEnd && start == buffer.count ? nil : lines
    }

    /// The next whole line's content range (nil for a blank line) and the bytes it takes with its
    /// line end; nil when no whole line is buffered (at the end, the rest is the last line).
    private mutating func nextLineRange() -> (Range<Int>?, Int)? {
        guard start < buffer.count else { return nil }
        let newline: Int? = buffer.withUnsafeBufferPointer { all in
            let base = UnsafeRawPointer(all.baseAddress!)
            return memchr(base + start, 0x0A, all.count - start).map { UnsafeRawPointer($0) - base }
        }
        guard let end = newline ?? (atEnd ? buffer.count : nil) else { return nil }
        var last = end
        if last > start, buffer[last - 1] == 0x0D { last -= 1 }
        let content = start..<last
        let consumed = min(end + 1, buffer.count) - start
        start += consumed
        let blank = buffer[content].allSatisfy { $0 == 0x20 || $0 == 0x09 }
        return (blank ? nil : content, consumed)
    }

    private mutating func readBlock() throws {
        guard let handle else {
            atEnd = true
            return
        }
        buffer.removeFirst(start)
        start = 0
        let block: Data?
        do {
            block = try handle.read(upToCount: blockSize)
        } catch {
            throw IngestSourceError(message: "cannot read \(path): \(fileErrorReason(error))")
        }
        if let block, !block.isEmpty {
            buffer.append(contentsOf: block)
        } else {
            atEnd = true
            if ownsHandle { try? handle.close() }
        }
    }
}
