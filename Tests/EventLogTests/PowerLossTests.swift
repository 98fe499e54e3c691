import EventLog
import Foundation
import TestSupport
import Testing

#if os(Linux)
/// The power is cut while a writer appends: the store's files are put into a state the disk could
/// hold after a power loss (PowerLossDisk, tools/powerloss/interposer.c), then the store must open,
/// verify, hold every append acknowledged before the cut, and hold the interrupted batch whole or not
/// at all.
///
/// This is what guards the durability of an acknowledged append: opening the environment with
/// `MDB_NOSYNC` or `MDB_NOMETASYNC`, or acknowledging a group commit before its transaction is
/// synced, passes every SIGKILL test (the kernel still writes a killed process's page cache) and
/// must fail this one.
///
/// `EVENTLOG_POWERLOSS_ROUNDS` sets the number of cuts per case (3 by default; 200 for a deep run).
@Suite(.serialized, .timeLimit(.minutes(20))) struct PowerLossTests {
    static var rounds: Int { ProcessInfo.processInfo.environment["EVENTLOG_POWERLOSS_ROUNDS"].flatMap(Int.init) ?? 3 }

    struct Case: CustomTestStringConvertible, Sendable {
        var appenders: Int
        var mode: PowerLossDisk.Mode
        var testDescription: String { "\(appenders) appenders, \(mode)" }
    }

    @Test(arguments: [
        Case(appenders: 8, mode: .unsyncedWritesLost),
        Case(appenders: 64, mode: .unsyncedWritesLost),
        Case(appenders: 8, mode: .someUnsyncedPagesKeptOneTorn),
        Case(appenders: 64, mode: .someUnsyncedPagesKeptOneTorn),
    ])
    func everyAcknowledgedAppendSurvivesAPowerCut(_ testCase: Case) async throws {
        try await withTemporaryStore { store in
            try store.create().close()
            let disk = try PowerLossDisk(storePath: store.storePath, journal: store.root.appendingPathComponent("journal"))
            var generator = SystemRandomNumberGenerator()
            var acknowledged = 0
            for round in 0..<Self.rounds {
                // Long enough, across rounds, to cross the stream index's folds (every 2,048 events).
                try await CrashWriterRound.runAndKill(store, appenders: testCase.appenders,
                                                      after: .milliseconds(Int.random(in: 100...900, using: &generator)),
                                                      environment: try disk.environment())
                let outcome = try disk.cutPower(testCase.mode, using: &generator)
                acknowledged = try CrashWriterRound.checkSurvivors(store, round: round, "(\(outcome))")
            }
            #expect(acknowledged > Self.rounds, "the writer should have acknowledged appends across the rounds")
        }
    }
}
#endif
