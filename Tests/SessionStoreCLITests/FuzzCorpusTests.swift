import Foundation
import Testing
import TestSupport

/// Every seed and every input that once crashed a parser (Fixtures/fuzz/TARGET) runs through the
/// ordinary build of each fuzz target: what the fuzzer found stays fixed without the fuzzer.
@Suite struct FuzzCorpusTests {
    static let targets = ["json", "ndjson-line", "record", "wire", "flac", "fixture", "audio-file"]

    @Test(arguments: targets)
    func everyInputOfTheCorpusIsAnsweredWithoutACrash(_ target: String) throws {
        let corpus = RepositoryFixtures.root.appendingPathComponent("fuzz/\(target)")
        let inputs = try FileManager.default.contentsOfDirectory(atPath: corpus.path).count
        #expect(inputs > 0)
        let process = try ChildProcess(BuiltProducts.url("SessionStoreFuzz"), [target, corpus.path])
        let outcome = process.wait(limit: .seconds(300))
        #expect(outcome.status == 0 && !outcome.signalled, "\(target): \(outcome.stderr)")
        #expect(outcome.stdoutText == "\(target): \(inputs) inputs, no crash\n")
    }

    @Test func anUnknownTargetIsAUsageError() throws {
        let outcome = try ChildProcess(BuiltProducts.url("SessionStoreFuzz"), ["nothing", "/dev/null"]).wait(limit: .seconds(60))
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("usage: SessionStoreFuzz json|ndjson-line|record|wire|flac|fixture|audio-file"))
    }
}
