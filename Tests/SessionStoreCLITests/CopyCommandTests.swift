import Foundation
import TestSupport
import Testing

/// `sessionstore copy`: LMDB to PostgreSQL and back, killed halfway and run again, refusing to overwrite.
@Suite(PostgresServer.suite) struct CopyCommandTests {
    private func root(in output: String) -> String? {
        output.split(separator: "\n").first { $0.hasPrefix("copy verified:") }.flatMap { $0.split(separator: " ").last.map(String.init) }
    }

    @Test func copyingTheDemoStoreToPostgreSQLAndBackVerifiesEachCopyToTheSameTreeRoot() async throws {
        let server = try #require(PostgresServer.current)
        try await withCLI { cli in
            #expect(try cli.run(["demo", "--store", cli.storePath, "--key-file", cli.keyPath]).status == 0)
            let database = try server.freshDatabase()
            let there = try cli.run(["copy", "--store", cli.storePath, "--key-file", cli.keyPath, "--to", database])
            #expect(there.status == 0, "\(there.stderr)")
            #expect(there.stdout.contains("copied 1345 records to postgresql://"))
            #expect(there.stdout.contains("(the same)"))
            let back = cli.directory.appendingPathComponent("back.store").path
            let home = try cli.run(["copy", "--store", database, "--key-file", cli.keyPath, "--to", back])
            #expect(home.status == 0, "\(home.stderr)")
            #expect(root(in: there.stdout) != nil && root(in: there.stdout) == root(in: home.stdout))

            let verify = try cli.run(["verify", "--store", back, "--key-file", cli.keyPath])
            #expect(verify.status == 0)
            #expect(verify.stdout.contains(try #require(root(in: there.stdout))))
            let sessions = { (store: String) in try cli.run(["sessions", "--store", store, "--key-file", cli.keyPath, "--format", "csv"]).stdout }
            #expect(try sessions(back) == sessions(cli.storePath))
        }
    }

    @Test func aCopyKilledAtAnyMomentFinishesWhenRunAgain() async throws {
        let server = try #require(PostgresServer.current)
        try await withCLI { cli in
            #expect(try cli.run(["demo", "--store", cli.storePath, "--key-file", cli.keyPath]).status == 0)
            var generator = SystemRandomNumberGenerator()
            for destination in [cli.directory.appendingPathComponent("copy.store").path, try server.freshDatabase()] {
                let copying = try cli.start(["copy", "--store", cli.storePath, "--key-file", cli.keyPath, "--to", destination,
                                             "--batch", "20", "--skip-verify"])
                try await Task.sleep(for: .milliseconds(Int.random(in: 50...1_500, using: &generator)))
                copying.kill()
                let again = try cli.run(["copy", "--store", cli.storePath, "--key-file", cli.keyPath, "--to", destination])
                #expect(again.status == 0, "\(again.stderr)")
                #expect(again.stdout.contains("(the same)"), "\(again.stdout)")
            }
        }
    }

    @Test func aCopyOntoAnotherStoreExitsWithItsCodeAndLeavesItAlone() async throws {
        try await withCLI { cli in
            #expect(try cli.run(["init", "--store", cli.storePath, "--key-file", cli.keyPath]).status == 0)
            let other = cli.directory.appendingPathComponent("other.store").path
            let otherKey = cli.directory.appendingPathComponent("other.key").path
            #expect(try cli.run(["demo", "--store", other, "--key-file", otherKey]).status == 0)
            let refused = try cli.run(["copy", "--store", cli.storePath, "--key-file", cli.keyPath, "--to", other])
            #expect(refused.status == 65, "\(refused.status) \(refused.stderr)")
            #expect(refused.stderr.contains("holds another store"))
            #expect(try cli.run(["verify", "--store", other, "--key-file", otherKey]).stdout.contains("intact: 1345 records checked"))
        }
    }
}
