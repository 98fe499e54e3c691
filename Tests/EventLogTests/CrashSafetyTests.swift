import EventLog
import Foundation
import TestSupport
import Testing

/// A writer process is killed with SIGKILL at random moments; every append it had been told was
/// durable must survive, and the store must open and verify intact after each kill. (A SIGKILL leaves
/// the page cache to the kernel: what only a power loss loses is PowerLossTests' part.)
///
/// `EVENTLOG_CRASH_ROUNDS` sets the number of kills (20 by default; raise it for a slower, deeper run).
@Suite(.timeLimit(.minutes(runningSanitized ? 60 : 25))) struct CrashSafetyTests {
    static var rounds: Int { ProcessInfo.processInfo.environment["EVENTLOG_CRASH_ROUNDS"].flatMap(Int.init) ?? 20 }

    @Test func everyAcknowledgedAppendSurvivesSIGKILLAndTheStoreVerifies() async throws {
        try await withTemporaryStore { store in
            try store.create().close()
            var generator = SystemRandomNumberGenerator()
            var acknowledged = 0
            for round in 0..<Self.rounds {
                // Let it start (opening the store), then kill it somewhere in its work.
                try await CrashWriterRound.runAndKill(store, appenders: 8,
                                                      after: .milliseconds(Int.random(in: 60...400, using: &generator)))
                acknowledged = try CrashWriterRound.checkSurvivors(store, round: round)
            }
            #expect(acknowledged > Self.rounds, "the writer should have acknowledged appends across the rounds")
        }
    }
}
