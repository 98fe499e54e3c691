import EventLog
import Foundation
import Testing
import TestSupport

#if os(Linux)
/// The power is cut while `ingest`, `keys rotate` or `erase` runs (PowerLossDisk: what the disk could
/// hold, unsynced writes lost or some unsynced pages kept with one torn). Each time the store must
/// open and verify; an ingest is all or nothing and every ingest that had finished is kept; a rotation
/// leaves exactly one key that opens the store and reads every event; an erasure, run again, finishes.
///
/// `EVENTLOG_POWERLOSS_ROUNDS` sets the number of cuts per command (3 by default).
@Suite(.serialized, .timeLimit(.minutes(15))) struct PowerLossCommandsTests {
    static var rounds: Int { ProcessInfo.processInfo.environment["EVENTLOG_POWERLOSS_ROUNDS"].flatMap(Int.init) ?? 3 }

    /// `count` sessions of 23 events each (start, consent, 20 commits, end), of subjects `user-0…9`.
    static func sessions(_ count: Int) -> Data {
        var lines: [String] = []
        for index in 0..<count {
            let session = UUID().uuidString.lowercased()
            let subject = "user-\(index % 10)"
            lines.append(#"{"type":"session.started","session":"\#(session)","at":"2026-03-01T10:00:00.000Z","subject":"\#(subject)","locale":"en"}"#)
            lines.append(#"{"type":"consent.granted","session":"\#(session)","at":"2026-03-01T10:00:00.000Z","subject":"\#(subject)","consent_type":"transcription","method":"in_app_prompt"}"#)
            for segment in 0..<20 {
                lines.append(#"{"type":"transcript.committed","session":"\#(session)","at":"2026-03-01T10:00:01.000Z","segment":"s\#(segment)","text":"segment \#(segment) of session \#(index)","start_ms":\#(segment * 1000),"end_ms":\#(segment * 1000 + 900)}"#)
            }
            lines.append(#"{"type":"session.ended","session":"\#(session)","at":"2026-03-01T10:00:30.000Z"}"#)
        }
        return Data(lines.joined(separator: "\n").utf8)
    }

    struct Cut {
        var finished: Bool
        var outcome: PowerLossDisk.Outcome
    }

    /// Runs the binary under the disk's journal, cuts the power after `delay` (or once it has ended),
    /// and says whether it had finished successfully first.
    static func run<G: RandomNumberGenerator>(_ arguments: [String], in cli: CLIRunner, on disk: PowerLossDisk,
                                              cuttingAfter delay: Duration, _ mode: PowerLossDisk.Mode,
                                              using generator: inout G) async throws -> Cut {
        let process = try cli.start(arguments, environment: try disk.variables())
        try await Task.sleep(for: delay)
        process.kill()
        let outcome = process.wait(limit: .seconds(10))
        let finished = !outcome.signalled && outcome.status == 0
        #expect(finished || outcome.signalled, "\(arguments.first ?? "") failed by itself: \(outcome.stderr)")
        return Cut(finished: finished, outcome: try disk.cutPower(mode, using: &generator))
    }

    static func mode(_ round: Int) -> PowerLossDisk.Mode {
        round.isMultiple(of: 2) ? .unsyncedWritesLost : .someUnsyncedPagesKeptOneTorn
    }

    static func openAndVerify(_ cli: CLIRunner, key: String? = nil, _ context: String) throws -> EventLog {
        let log = try EventLog.open(at: cli.storePath, key: .keyFile(key ?? cli.keyPath), options: .testing)
        let report = try log.verify()
        #expect(report.isIntact, "\(report.problems.prefix(3)) \(context)")
        return log
    }

    @Test func anIngestCutByPowerLossIsAllOrNothingAndEveryFinishedIngestIsKept() async throws {
        try await withCLI { cli in
            #expect(try cli.run(["init"]).status == 0)
            let file = cli.directory.appendingPathComponent("sessions.ndjson")
            try Self.sessions(1500).write(to: file)  // about 2 s to ingest in a debug build
            #expect(try cli.run(["ingest", file.path]).status == 0)
            let perFile = try EventLog.open(at: cli.storePath, key: .keyFile(cli.keyPath), options: .testing).eventCount()
            let disk = try PowerLossDisk(storePath: cli.storePath, journal: cli.directory.appendingPathComponent("journal"))
            var generator = SystemRandomNumberGenerator()
            var stored = perFile
            var cutsDuringIngest = 0
            for round in 0..<Self.rounds {
                try Self.sessions(1500).write(to: file)
                let cut = try await Self.run(["ingest", file.path], in: cli, on: disk,
                                             cuttingAfter: .milliseconds(Int.random(in: 50...2000, using: &generator)),
                                             Self.mode(round), using: &generator)
                let context = "round \(round): \(cut.outcome)"
                let log = try Self.openAndVerify(cli, context)
                let count = try log.eventCount()
                if cut.finished {
                    #expect(count == stored + perFile, "a finished ingest must be kept whole: \(context)")
                } else {
                    cutsDuringIngest += 1
                    #expect(count == stored || count == stored + perFile, "\(count - stored) of \(perFile) events kept: \(context)")
                }
                #expect(try log.readAll().count == Int(count), "\(context)")
                stored = count
            }
            print("power cuts during ingest: \(cutsDuringIngest) of \(Self.rounds)")
        }
    }

    @Test func aKeyRotationCutByPowerLossLeavesExactlyOneKeyThatReadsEverything() async throws {
        try await withCLI { cli in
            #expect(try cli.run(["init"]).status == 0)
            #expect(try cli.run(["ingest", "-"], input: Self.sessions(300)).status == 0)
            let count = try EventLog.open(at: cli.storePath, key: .keyFile(cli.keyPath), options: .testing).eventCount()
            let other = cli.directory.appendingPathComponent("other.key").path
            try MasterKeyFile.create(at: other)
            var current = cli.keyPath, next = other
            let disk = try PowerLossDisk(storePath: cli.storePath, journal: cli.directory.appendingPathComponent("journal"))
            var generator = SystemRandomNumberGenerator()
            for round in 0..<Self.rounds {
                let cut = try await Self.run(["keys", "rotate", "--key-file", current, "--new-key-file", next], in: cli, on: disk,
                                             cuttingAfter: .milliseconds(Int.random(in: 20...600, using: &generator)),
                                             Self.mode(round), using: &generator)
                let context = "round \(round): \(cut.outcome)"
                let withCurrent = try? EventLog.open(at: cli.storePath, key: .keyFile(current), options: .testing)
                let withNext = try? EventLog.open(at: cli.storePath, key: .keyFile(next), options: .testing)
                #expect((withCurrent == nil) != (withNext == nil), "exactly one key must open the store: \(context)")
                if cut.finished { #expect(withNext != nil, "a finished rotation must be kept: \(context)") }
                let log = try #require(withNext ?? withCurrent, "\(context)")
                #expect(try log.verify().isIntact, "\(context)")
                #expect(try log.readAll().count == Int(count), "every event reads with the key that opens: \(context)")
                if withNext != nil { swap(&current, &next) }
            }
        }
    }

    @Test func anErasureCutByPowerLossLeavesAStoreThatVerifiesAndTheErasureFinishesWhenRunAgain() async throws {
        try await withCLI { cli in
            #expect(try cli.run(["init"]).status == 0)
            #expect(try cli.run(["ingest", "-"], input: Self.sessions(300)).status == 0)
            let disk = try PowerLossDisk(storePath: cli.storePath, journal: cli.directory.appendingPathComponent("journal"))
            var generator = SystemRandomNumberGenerator()
            for round in 0..<Self.rounds {
                let subject = "user-\(round % 10)"
                let cut = try await Self.run(["erase", "--subject", subject, "--yes"], in: cli, on: disk,
                                             cuttingAfter: .milliseconds(Int.random(in: 20...600, using: &generator)),
                                             Self.mode(round), using: &generator)
                let context = "round \(round): \(cut.outcome)"
                try Self.openAndVerify(cli, context).close()
                let again = try cli.run(["erase", "--subject", subject, "--yes", "--format", "json"])
                #expect(again.status == 0, "\(again.stderr) \(context)")
                let report = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any], "\(context)")
                let erased = (report["erased_sessions"] as? [String] ?? []) + (report["already_erased_sessions"] as? [String] ?? [])
                #expect(erased.count == 30, "the subject's sessions: \(context)")
                for session in erased.prefix(3) {
                    #expect(try cli.run(["events", session]).status == 65, "an erased session reads as erased: \(context)")
                }
                #expect(try cli.run(["verify"]).status == 0, "\(context)")
            }
            let sessions = try cli.run(["sessions", "--format", "csv"])
            let kept = sessions.stdout.split(whereSeparator: \.isNewline).filter { !$0.contains(",erased,") }
            #expect(kept.count == 1 + 300 - 30 * min(Self.rounds, 10), "every other subject's session is kept: \(sessions.stderr)")
        }
    }
}
#endif
