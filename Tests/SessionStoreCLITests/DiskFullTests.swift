import EventLog
import Foundation
import Testing
import TestSupport

#if os(Linux)
/// The disk fills up (a file size limit set with prlimit stands in for it: the write that crosses it
/// is cut short, as on a full disk): the command fails with one sentence and exit 1, nothing of the
/// failed write is stored, every acknowledged event stays, and the store verifies and goes on working.
@Suite(.timeLimit(.minutes(10))) struct DiskFullTests {
    static let prlimit = "/usr/bin/prlimit"
    static let enabled = FileManager.default.isExecutableFile(atPath: prlimit)

    static func fileSize(_ path: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
    }

    @Test(.enabled(if: enabled, "needs prlimit (util-linux)"))
    func anIngestThatFillsTheDiskFailsClearlyAndStoresNothingOfTheFile() async throws {
        try await withCLI { cli in
            #expect(try cli.run(["init"]).status == 0)
            #expect(try cli.run(["ingest", "-"], input: PowerLossCommandsTests.sessions(20)).status == 0)
            let before = try EventLog.open(at: cli.storePath, key: .keyFile(cli.keyPath), options: .testing).eventCount()
            let big = cli.directory.appendingPathComponent("big.ndjson")
            try PowerLossCommandsTests.sessions(2000).write(to: big)
            let limit = try Self.fileSize(cli.storePath + "/data.mdb") + 256 * 1024
            let full = try ChildProcess.run(URL(fileURLWithPath: Self.prlimit),
                                            ["--fsize=\(limit)", CLIRunner.binary().path, "ingest", big.path], directory: cli.directory)
            #expect(full.status == 1 && !full.signalled, "\(full.stderr)")
            let lines = full.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines.first?.contains("cannot write the store file (is the disk full") == true, "\(full.stderr)")

            let log = try EventLog.open(at: cli.storePath, key: .keyFile(cli.keyPath), options: .testing)
            #expect(try log.verify().isIntact)
            #expect(try log.eventCount() == before, "nothing of the file was stored")
            try log.close()
            let again = try cli.run(["ingest", big.path])
            #expect(again.status == 0, "the store goes on working once there is room: \(again.stderr)")
        }
    }

    @Test(.enabled(if: enabled, "needs prlimit (util-linux)"))
    func appendsThatFillTheDiskFailAndEveryAcknowledgedOneStays() async throws {
        try await withTemporaryStore { store in
            try store.create().close()
            let limit = try Self.fileSize(store.dataFile) + 2 * 1024 * 1024
            let writer = try ChildProcess(URL(fileURLWithPath: Self.prlimit),
                                          ["--fsize=\(limit)", BuiltProducts.url("EventLogCrashWriter").path,
                                           store.storePath, store.keyPath, CrashWriterAcknowledgements.path(store), "16"])
            let outcome = writer.wait(limit: .seconds(120))
            #expect(!outcome.timedOut && outcome.status == 1 && !outcome.signalled, "the writer stops on the failed append: \(outcome.stderr)")
            #expect(outcome.stderr.contains("cannot write the store file"), "\(outcome.stderr)")
            let acknowledged = CrashWriterAcknowledgements.read(store)
            #expect(acknowledged.count > 100)
            let log = try store.open()
            #expect(try log.verify().isIntact)
            let stored = Dictionary(uniqueKeysWithValues: try log.readAll().map { ($0.position, $0.id) })
            #expect(acknowledged.allSatisfy { stored[$0.0] == $0.1 }, "every acknowledged append is stored")
        }
    }
}
#endif
