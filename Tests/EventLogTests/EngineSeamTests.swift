import Foundation
import TestSupport
import Testing

/// The engine is written against the storage seam (`Sources/EventLog/Storage`): no file of it outside
/// the built-in backends' own directories (LMDB, memory) names a backend, so a backend is added in a
/// module of its own (as PostgreSQL is, `Sources/EventLogPostgres`), and a program that links only the
/// engine does not link libpq.
@Suite struct EngineSeamTests {
    static let backendDirectories: Set<String> = ["LMDB", "Memory"]
    /// The one line of the seam that names backends: the built-in ones, after those registered.
    static let builtInBackends = "[MemoryBackend(), LMDBBackend()]"

    @Test func noFileOfTheEngineOutsideTheStorageSeamNamesABackend() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/EventLog")
        let files = try FileManager.default.subpathsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".swift") }
        // What naming a backend looks like: its types, its enum cases, LMDB's and libpq's C calls.
        let backendNames = #/\b(LMDB|Postgres|PG|Memory)[A-Z]\w*|\.(lmdb|postgres|memory)\b|\bmdb_\w+|\bPQ\w+/#
        #expect(files.count > 40, "the engine's sources were found")
        var offenders: [String] = []
        for file in files where !Self.backendDirectories.contains(String(file.prefix { $0 != "/" })) {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") && !line.contains(Self.builtInBackends) {
                if let match = line.firstMatch(of: backendNames) { offenders.append("\(file):\(number + 1): \(match.output.0)") }
            }
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }

    /// SessionStoreFuzz links the engine, ingest and audio, not the PostgreSQL module;
    /// sessionstore links it too.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/bin/ldd"), "ldd lists a Linux program's libraries"))
    func aProgramLinkingOnlyTheEngineDoesNotLinkLibpq() throws {
        func libraries(_ product: String) throws -> String {
            let outcome = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/ldd"), [BuiltProducts.url(product).path])
            try #require(outcome.status == 0, "ldd \(product): \(outcome.stderr)")
            return outcome.stdoutText
        }
        let engineOnly = try libraries("SessionStoreFuzz")
        #expect(engineOnly.contains("liblmdb"))
        #expect(!engineOnly.contains("libpq"))
        #expect(try libraries("sessionstore").contains("libpq"))
    }
}
