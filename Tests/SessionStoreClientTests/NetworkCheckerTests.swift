import Foundation
import TestSupport
import Testing

/// tools/netem/check.py over a short seeded slice: 16 apps (ClientRecorder) record through the network emulator, one
/// schedule per profile, with the server and clients SIGKILLed and started again, HTTP 401, 429 and 500 answers and
/// resets; every event whose append returned is stored once, in order, its audio byte-identical, every outbox empty,
/// `verify` passing. The long run (200 schedules and more) is a benchmark: docs/PERFORMANCE.md.
@Suite struct NetworkCheckerTests {
    @Test(.timeLimit(.minutes(15))) func sixteenAppsUnderSeededFaultsLoseAndDuplicateNothing() async throws {
        let repository = RepositoryFixtures.root.deletingLastPathComponent()
        let binaries = BuiltProducts.url("sessionstore").deletingLastPathComponent()
        let report = Scratch.url("netem-\(UUID().uuidString.prefix(8)).json")
        let run = try await offThePool {
            try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"),
                                 ["python3", "tools/netem/check.py", binaries.path, "--schedules", "6", "--seed", "60", "--clients", "16",
                                  "--chunks", "20", "--limit", "240", "--report", report.path],
                                 directory: repository, limit: .seconds(840))
        }
        let schedules = (try? JSONSerialization.jsonObject(with: Data(contentsOf: report))) as? [[String: Any]] ?? []
        #expect(run.status == 0, "\(run.stdoutText)\n\(run.stderr.suffix(2000))")
        #expect(schedules.count == 6)
        for schedule in schedules {
            #expect(schedule["lost"] as? Int == 0 && schedule["duplicated"] as? Int == 0, "\(schedule)")
            #expect((schedule["events"] as? Int ?? 0) == 16 * 47, "every session whole: \(schedule)")
        }
        // The slice covers every profile, and the server killed and a client killed somewhere in it.
        #expect(Set(schedules.compactMap { $0["profile"] as? String }).count == 6)
        let kinds = Set(schedules.flatMap { $0["fault_kinds"] as? [String] ?? [] })
        #expect(kinds.isSuperset(of: ["server-kill", "client-kill"]), "\(kinds)")
    }
}
