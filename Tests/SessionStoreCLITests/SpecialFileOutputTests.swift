import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every option that names an output (`--out`, `--trace`, `--bundle`) writes into a FIFO or a device in
/// place: the node is never unlinked or renamed over (a rename over `/dev/null` as root once replaced the
/// machine's device node with a regular file).
@Suite(.serialized) struct SpecialFileOutputTests {
    static let s = OutputFixture.session
    /// Each command with the output option's value as `OUT`.
    static let commands: [[String]] = [
        ["sessions", "--out", "OUT"],
        ["transcript", s, "--format", "csv", "--out", "OUT"],
        ["events", s, "--out", "OUT"],
        ["stats", "--format", "json", "--out", "OUT"],
        ["export", s, "--format", "vtt", "--out", "OUT"],
        ["export", "--subject", OutputFixture.subject, "--bundle", "OUT"],
        ["audio", s, "--format", "flac", "--out", "OUT"],
        ["replay", s, "--quiet", "--trace", "OUT"],
        ["report", s, "--no-audio", "--out", "OUT"],
        ["anchor", "--out", "OUT"],
        ["verify", "--format", "json", "--out", "OUT"],
        ["audit", "check", "--format", "json", "--out", "OUT"],
    ]

    private static func fileType(_ path: String) -> mode_t? {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_mode & S_IFMT : nil
    }

    @Test(.timeLimit(.minutes(10)), arguments: commands)
    func anOutputIntoAFIFOReachesItsReaderAndLeavesTheFIFO(_ command: [String]) async throws {
        try await withCLI { cli in
            try OutputFixture.copy(into: cli)
            let fifo = cli.directory.appendingPathComponent("pipe").path
            #expect(mkfifo(fifo, 0o600) == 0)
            let received = ReceivedBytes()
            let reader = Thread {
                if let handle = FileHandle(forReadingAtPath: fifo) { received.set(handle.readDataToEndOfFile()) }
            }
            reader.start()
            let outcome = try cli.run(command.map { $0 == "OUT" ? fifo : $0 })
            #expect(outcome.status == 0, "\(outcome.stderr)")
            for _ in 0..<1000 where received.get() == nil { usleep(10_000) }
            #expect((received.get()?.count ?? 0) > 0, "the reader got nothing")
            #expect(Self.fileType(fifo) == S_IFIFO, "the FIFO was replaced")
            #expect(!(try FileManager.default.contentsOfDirectory(atPath: cli.directory.path).contains { $0.contains(".partial") }))
        }
    }

    @Test(.timeLimit(.minutes(10)), arguments: commands)
    func anOutputIntoACharacterDeviceLeavesTheDeviceNode(_ command: [String]) async throws {
        try await withCLI { cli in
            try OutputFixture.copy(into: cli)
            // A private node with /dev/null's device number: nothing of the machine's is at risk.
            let device = cli.directory.appendingPathComponent("null").path
            guard mknod(device, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0 else {
                withKnownIssue("mknod is not permitted here: the device case is not run") { throw POSIXError(.EPERM) }
                return
            }
            let outcome = try cli.run(command.map { $0 == "OUT" ? device : $0 })
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(Self.fileType(device) == S_IFCHR, "the device node was replaced by a \(String(describing: Self.fileType(device)))")
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func standardOutputByNameCarriesTheDataAndTheSummaryGoesToStandardError() async throws {
        try await withCLI { cli in
            try OutputFixture.copy(into: cli)
            let outcome = try cli.run(["audio", Self.s, "--format", "wav", "--out", "/dev/stdout"])
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(outcome.stdout.hasPrefix("RIFF"), "no WAV on standard output")
            #expect(outcome.stderr.contains("wrote"))
        }
    }
}

/// Bytes a reader thread received, behind a lock.
final class ReceivedBytes: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var data: Data?
    func set(_ value: Data) { lock.withLock { data = value } }
    func get() -> Data? { lock.withLock { data } }
}
