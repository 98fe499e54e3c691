import Foundation
import Testing

/// The engine is written against the storage seam (`Sources/EventLog/Storage`): no file of it outside
/// the seam and the backends' own directories (LMDB, PostgreSQL, memory) names a backend, so a backend is added there alone.
@Suite struct EngineSeamTests {
    static let backendDirectories: Set<String> = ["Storage", "LMDB", "Postgres", "Memory"]

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
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                if let match = line.firstMatch(of: backendNames) { offenders.append("\(file):\(number + 1): \(match.output.0)") }
            }
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }
}
