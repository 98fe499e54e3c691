import Foundation
@testable import Output
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `--out` and every other output path: a regular file is replaced when complete; a device, a FIFO or a
/// descriptor name is written in place and survives.
@Suite struct OutputDestinationTests {
    private func withDirectory<R>(_ body: (URL) throws -> R) throws -> R {
        let directory = Scratch.url("output-destination-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory)
    }

    private func fileType(_ path: String) -> mode_t? {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_mode & S_IFMT : nil
    }

    @Test func aRegularFileIsReplacedOnlyWhenTheSinkCloses() throws {
        try withDirectory { directory in
            let path = directory.appendingPathComponent("out.txt").path
            try "old\n".write(toFile: path, atomically: false, encoding: .utf8)
            let sink = try OutputSink.file(path)
            sink.write("new\n")
            try sink.flush()
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "old\n", "the old file stays until close")
            try sink.close()
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "new\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.txt"])
        }
    }

    @Test func aSinkThatIsNeverClosedLeavesTheOldFileAndNoPartialOne() throws {
        try withDirectory { directory in
            let path = directory.appendingPathComponent("out.txt").path
            try "old\n".write(toFile: path, atomically: false, encoding: .utf8)
            do {
                let sink = try OutputSink.file(path)
                sink.write("half")
                try sink.flush()
            }
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "old\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.txt"])
        }
    }

    @Test func aFIFOIsWrittenInPlaceAndStaysAFIFO() throws {
        try withDirectory { directory in
            let path = directory.appendingPathComponent("pipe").path
            #expect(mkfifo(path, 0o600) == 0)
            let received = LockedBox(Data())
            let reader = Thread {
                if let handle = FileHandle(forReadingAtPath: path) { received.value = handle.readDataToEndOfFile() }
            }
            reader.start()
            let sink = try OutputSink.file(path)
            sink.write("through the pipe\n")
            try sink.close()
            for _ in 0..<500 where received.value.isEmpty { usleep(10_000) }
            #expect(String(decoding: received.value, as: UTF8.self) == "through the pipe\n")
            #expect(fileType(path) == S_IFIFO)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["pipe"])
        }
    }

    @Test func aCharacterDeviceIsWrittenInPlaceAndNeverReplaced() throws {
        try withDirectory { directory in
            // A private node with /dev/null's device number, so nothing of the machine's is at risk.
            let path = directory.appendingPathComponent("null").path
            guard mknod(path, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0 else {
                withKnownIssue("mknod is not permitted here (errno \(errno)): the character-device case is not run") {
                    throw POSIXError(.EPERM)
                }
                return
            }
            let sink = try OutputSink.file(path)
            sink.write(String(repeating: "x", count: OutputSink.bufferCapacity * 3))
            try sink.close()
            #expect(fileType(path) == S_IFCHR, "the device node is still a device node")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["null"])
        }
    }

    @Test func aLinkToARegularFileIsKeptAndItsTargetReplaced() throws {
        try withDirectory { directory in
            let target = directory.appendingPathComponent("target.txt").path
            let link = directory.appendingPathComponent("link.txt").path
            try "old\n".write(toFile: target, atomically: false, encoding: .utf8)
            #expect(symlink(target, link) == 0)
            let sink = try OutputSink.file(link)
            sink.write("new\n")
            try sink.close()
            #expect(fileType(link) == S_IFLNK)
            #expect(try String(contentsOfFile: target, encoding: .utf8) == "new\n")
        }
    }

    @Test(arguments: [("-", Int32(1)), ("/dev/stdout", 1), ("/dev/stderr", 2), ("/dev/fd/63", 63), ("/proc/self/fd/7", 7)])
    func namesOfOpenDescriptorsAreWrittenThroughThoseDescriptors(_ path: String, _ descriptor: Int32) throws {
        #expect(try OutputDestination.of(path) == .descriptor(descriptor))
    }

    @Test func aDirectoryIsRefusedWithASentenceNamingIt() throws {
        try withDirectory { directory in
            let error = #expect(throws: OutputError.self) { try OutputSink.file(directory.path) }
            #expect(error?.code == .cannotCreate)
            #expect(error?.message.contains("is a directory") == true)
        }
    }

    @Test func aMissingFileIsCreatedByReplacement() throws {
        try withDirectory { directory in
            let path = directory.appendingPathComponent("new.txt").path
            let destination = try OutputDestination.of(path)
            #expect(destination == .replace(path: path))
        }
    }
}

/// A value shared with a thread, behind a lock.
final class LockedBox<Value>: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
