import Foundation
import SessionModel
import Testing
import TestSupport

/// Bytes of LMDB's own page headers damaged (not record bytes): LMDB keeps no checksum and trusts
/// them, so `verify` checks the file's structure from its bytes before LMDB walks it. Every damage of a
/// page number, page kind or node bounds must end in exit 2, never in a crash. (A page inside an overflow
/// run holds data, not a header: damage there is found by the record's or dictionary's own tag.)
@Suite(.timeLimit(.minutes(10))) struct PageDamageTests {
    @Test func verifyReportsEveryDamagedPageHeaderAndNeverCrashes() async throws {
        try await withCLI { cli in
            #expect(try cli.run(["init"]).status == 0)
            #expect(try cli.run(["ingest", "-"], input: PowerLossCommandsTests.sessions(300)).status == 0)
            #expect(try cli.run(["compact"]).status == 0)  // every page in use: none whose damage is harmless
            let dataFile = URL(fileURLWithPath: cli.storePath + "/data.mdb")
            let pristine = [UInt8](try Data(contentsOf: dataFile))
            let pages = pristine.count / 4096
            try #require(pages > 20)
            var generator = SeededGenerator(seed: 15)
            var undetected: [String] = []
            for _ in 0..<40 {
                let page = Int.random(in: 2..<pages, using: &generator)
                // The page number (0…7), its flags (10, 11), and its free-space bounds (12…15); not the two
                // padding bytes (8, 9), which LMDB does not use on these pages.
                let offset = [0, 1, 2, 10, 11, 12, 13, 14, 15].randomElement(using: &generator)!
                let bit = Int.random(in: 0..<8, using: &generator)
                var damaged = pristine
                damaged[page * 4096 + offset] ^= UInt8(1 << bit)
                try Data(damaged).write(to: dataFile)
                try? FileManager.default.removeItem(atPath: cli.storePath + "/lock.mdb")
                let verify = try cli.run(["verify"])
                let what = "page \(page) byte \(offset) bit \(bit)"
                #expect(verify.status >= 0, "\(what): verify crashed: \(verify.stderr)")
                if verify.status != 2 {
                    undetected.append("\(what): exit \(verify.status) \(verify.stdout.prefix(200)) \(verify.stderr.prefix(200))")
                }
            }
            #expect(undetected.isEmpty, "\(undetected.count) damaged headers not reported: \(undetected.prefix(5))")
            try Data(pristine).write(to: dataFile)
            #expect(try cli.run(["verify"]).status == 0)
        }
    }
}
