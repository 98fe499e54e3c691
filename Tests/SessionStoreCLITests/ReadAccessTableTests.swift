import ArgumentParser
import Foundation
@testable import sessionstore
import Testing
import TestSupport

/// Every command of the CLI either returns a person's data, and then leaves exactly one record in the access log
/// naming `--actor` and `--purpose`, or is listed here with why it returns none: a command the table does not
/// name fails, so that a new command cannot slip past the access log.
@Suite struct CLIReadAccessTableTests {
    /// What the rows' arguments are made from: a demo store with labelled runs.
    struct Store {
        let directory: URL
        let session: String
        let run: String

        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
    }

    enum Access {
        /// Returns session content: `arguments` leaves one record whose command is `command`.
        case records(_ command: String, arguments: @Sendable (Store) -> [String])
        /// Returns no session content, for the reason given.
        case noContent(_ why: String)
        /// Returns session content to a server, which the row's test starts: that test checks the one record.
        case recordsWithAServer(_ command: String, test: String)
    }

    static let table: [String: Access] = [
        "transcript": .records("transcript") { ["transcript", $0.session] },
        "events": .records("events") { ["events", $0.session, "--with-audio"] },
        "audio": .records("audio") { ["audio", $0.session, "--out", $0.path("a.flac")] },
        "report": .records("report") { ["report", $0.session, "--out", $0.path("r.html"), "--no-audio"] },
        "replay": .records("replay") { ["replay", $0.session, "--quiet"] },
        "compare": .records("compare") { ["compare", $0.session, $0.run] },
        "runs": .records("runs") { _ in ["runs"] },
        "export": .records("export vtt") { ["export", $0.session, "--format", "vtt", "--out", $0.path("e.vtt")] },
        "pack": .records("export pack") { ["pack", $0.session, "--out", $0.path("pack")] },
        "demo": .noContent("its transcript and replay are the transcript and replay commands, each recorded as such"),
        "init": .noContent("creates a store"),
        "ingest": .noContent("appends; prints counts and positions"),
        "record": .noContent("appends a session made from an audio file and a script"),
        "derive": .noContent("stores new sessions; prints their ids and conditions"),
        "sessions": .noContent("the session list: ids, times, counts, statuses, subject hashes and labels"),
        "consent": .noContent("the consent trail, the audit's own record of a person's choices"),
        "audit consent": .noContent("consent coverage: counts and session ids"),
        "audit check": .noContent("violations: session ids, rules and times"),
        "audit access": .noContent("the access log itself"),
        "audit integrity": .noContent("verifications and checkpoints"),
        "retention set": .noContent("stores a policy"),
        "retention show": .noContent("prints the policy"),
        "retention apply": .noContent("purges; prints counts"),
        "hold place": .noContent("stores a legal hold"),
        "hold release": .noContent("releases a legal hold"),
        "hold list": .noContent("the holds"),
        "erase": .noContent("destroys a person's keys"),
        "compact": .noContent("copies the store's live pages"),
        "anchor": .noContent("a signed checkpoint"),
        "prove": .noContent("hashes of an inclusion proof"),
        "witness init": .noContent("a witness's key"),
        "witness key": .noContent("a witness's public key"),
        "witness serve": .noContent("a witness's endpoint"),
        "witness add-checkpoint": .noContent("a cosignature"),
        "keys rotate": .noContent("rewraps data keys"),
        "tokens create": .noContent("a server token"),
        "tokens list": .noContent("the server's tokens"),
        "tokens revoke": .noContent("revokes a token"),
        "serve": .noContent("the server, whose routes have a table of their own (SessionServerTests.ReadAccessTableTests)"),
        "projections rebuild": .noContent("rebuilds the views; prints counts"),
        "stats": .noContent("counts and sizes"),
        "verify": .noContent("checks the log; prints counts and hashes"),
        "migrate": .noContent("upgrades the store"),
        "copy": .noContent("copies sealed records to another store"),
        "keys export-subject-key": .noContent("writes the subject-hashing key"),
        "push": .recordsWithAServer("export push", test: "PushCommandTests.aPushedStoreEndsUpOnTheServerEventForEventWithItsAudioAndASecondPushSendsNothing"),
    ]

    /// Every command that runs (no command that only groups others), as its words after `sessionstore`.
    static func commands(_ command: ParsableCommand.Type = SessionStoreCommand.self, prefix: [String] = []) -> [String] {
        command.configuration.subcommands.flatMap { subcommand -> [String] in
            // A command without a name of its own is called by its type's name in lower case, as the parser does.
            let path = prefix + [subcommand.configuration.commandName ?? String(describing: subcommand).lowercased()]
            return subcommand.configuration.subcommands.isEmpty ? [path.joined(separator: " ")] : commands(subcommand, prefix: path)
        }
    }

    @Test func everyCommandIsInTheAccessTable() {
        let commands = Self.commands()
        #expect(commands.count >= 40, "\(commands)")
        for command in commands {
            #expect(Self.table[command] != nil, "`\(command)` is not in the access table: say whether it returns a person's data")
        }
        #expect(Set(Self.table.keys) == Set(commands), "the table names commands the CLI does not have")
    }

    @Test func everyCommandThatReturnsAPersonsDataLeavesExactlyOneRecordNamingTheActorAndThePurpose() async throws {
        try await withCLI { cli in
            #expect(try await cli.runInProcess(["demo"]).status == 0)
            let list = try await cli.runInProcess(["sessions", "--format", "csv"]).stdout.split(whereSeparator: \.isNewline)
            let session = String(try #require(list.dropFirst().first?.split(separator: ",").first))
            let target = "python3 \(RepositoryFixtures.root.deletingLastPathComponent().path)/tools/replay/echo_target.py"
            var run = ""
            for label in ["v1", "v2"] {
                let drive = try await cli.runInProcess(["replay", session, "--drive", target, "--with-transcript", "--label", label])
                #expect(drive.status == 0, "\(drive.stderr)")
                run = drive.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let store = Store(directory: cli.directory, session: session, run: run)
            var rows = Self.table.sorted { $0.key < $1.key }.compactMap { name, access -> (String, String, [String])? in
                guard case .records(let command, let arguments) = access else { return nil }
                return (name, command, arguments(store))
            }
            rows.append(("compare --baseline", "compare", ["compare", "--baseline", "v1", "--candidate", "v2", "--resamples", "200"]))
            rows.append(("export --bundle", "export bundle", ["export", "--subject", "demo-clinician", "--bundle", store.path("b.zip")]))
            for (name, command, arguments) in rows {
                let purpose = "table row \(name)"
                let before = try AccessLogCommandsTests.json(await cli.runInProcess(["audit", "access", "--format", "json"]).stdout).count
                let outcome = try await cli.runInProcess(arguments + ["--actor", "table-reader", "--purpose", purpose])
                #expect(outcome.status == 0 || outcome.status == 4, "\(name): \(outcome.stderr)")
                let added = try AccessLogCommandsTests.json(await cli.runInProcess(["audit", "access", "--format", "json"]).stdout).dropFirst(before)
                #expect(added.count == 1, "`\(name)` left \(added.count) records")
                #expect(added.first?["command"] as? String == command, "\(name)")
                #expect(added.first?["actor"] as? String == "table-reader", "\(name)")
                #expect(added.first?["purpose"] as? String == purpose, "\(name)")
            }
        }
    }
}

extension CLIReadAccessTableTests {
    @Test func noModuleWritesAReadOrExportRecordButThroughReadAccess() throws {
        let files = RepositoryFixtures.swiftSources().filter { !$0.path.contains("/Generated/") }
        #expect(files.count > 100)
        for file in files where file.lastPathComponent != "AccessLog.swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for record in ["AccessRead(actor", "ExportPerformed(actor"] where text.contains(record) && file.lastPathComponent != "ReadAccess.swift" {
                Issue.record("\(file.lastPathComponent) makes an access record (\(record)) itself: read through ReadAccess")
            }
        }
    }
}

extension CLIReadAccessTableTests {
    @Test func aSuiteThatMatchesNoSessionIsRefusedNamingItsLabelsAndRecordsNoRead() async throws {
        try await withCLI { cli in
            #expect(try await cli.runInProcess(["demo"]).status == 0)
            let before = try AccessLogCommandsTests.json(await cli.runInProcess(["audit", "access", "--format", "json"]).stdout).count
            let target = "python3 \(RepositoryFixtures.root.deletingLastPathComponent().path)/tools/replay/echo_target.py"
            let none = try await cli.runInProcess(["replay", "--all", "--session-label", "suite=nonexistent", "--drive", target])
            #expect(none.status == 65, "\(none.stderr)")
            #expect(none.stderr.contains("none that is not itself a run and is labelled suite=nonexistent"), "\(none.stderr)")
            #expect(try AccessLogCommandsTests.json(await cli.runInProcess(["audit", "access", "--format", "json"]).stdout).count == before)
        }
    }
}
