import Foundation
import Testing
import TestSupport

/// The progress line of long commands appears on a terminal only: never in pipes, files or CI logs,
/// and not with --quiet.
@Suite(.timeLimit(.minutes(10))) struct ProgressLineTests {
    static let markers = ["\r", "\u{1B}[K", "verifying", "rebuilding", "parsing lines", "exporting", "compacting", "/s"]

    @Test func noCommandWritesAProgressLineWhenStandardErrorIsNotATerminal() async throws {
        try await withCLI { cli in
            #expect(try cli.run(["init"]).status == 0)
            let file = cli.directory.appendingPathComponent("sessions.ndjson")
            try FlatMemoryExportTests.sessions(300).write(to: file)
            let runs = [
                try cli.run(["ingest", file.path]),
                try cli.run(["verify"]),
                try cli.run(["projections", "rebuild"]),
                try cli.run(["export", "--all", "--format", "csv", "--out", cli.directory.appendingPathComponent("all.csv").path]),
                try cli.run(["erase", "--subject", "user-1", "--yes"]),
                try cli.run(["compact"]),
                try cli.run(["retention", "apply", "--max-age", "1d", "--as-of", "2026-06-01T00:00:00Z"]),
            ]
            for (index, run) in runs.enumerated() {
                #expect(run.status == 0, "command \(index): \(run.stderr)")
                for marker in Self.markers { #expect(!run.stderr.contains(marker), "command \(index) wrote \(marker.debugDescription) to a file") }
            }
        }
    }

    /// `script` (util-linux) gives the command a terminal.
    func onATerminal(_ cli: CLIRunner, _ arguments: [String]) throws -> String {
        let command = ([CLIRunner.binary().path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = "xterm"
        let run = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/script"), ["-qefc", command, "/dev/null"],
                                       environment: environment, directory: cli.directory, limit: .seconds(120))
        #expect(run.status == 0, "\(run.stdoutText) \(run.stderr)")
        return run.stdoutText
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script(1) for a terminal"))
    func onATerminalVerifyShowsItsProgressAndErasesItUnlessQuiet() async throws {
        try await withCLI { cli in
            #expect(try cli.run(["init"]).status == 0)
            #expect(try cli.run(["ingest", "-"], input: FlatMemoryExportTests.sessions(100)).status == 0)
            let shown = try onATerminal(cli, ["verify", "--store", cli.storePath, "--key-file", cli.keyPath])
            #expect(shown.contains("verifying: ") && shown.contains("records"), "\(shown.debugDescription)")
            #expect(shown.contains("\r\u{1B}[K"), "the line is erased at the end")
            #expect(shown.contains("intact"))
            let quiet = try onATerminal(cli, ["verify", "--quiet", "--store", cli.storePath, "--key-file", cli.keyPath])
            #expect(!quiet.contains("verifying") && quiet.contains("intact"), "\(quiet.debugDescription)")
        }
    }
}
