import Foundation
import Testing
import TestSupport

/// A measured figure lives in one place, docs/PERFORMANCE.md: the other documents link to it, so that none of them
/// goes on saying what a later run changed (ARCHITECTURE.md once said 0.75× SQLCipher where PERFORMANCE.md said 1.53×).
@Suite struct DocumentFiguresTests {
    /// Figures that belong to the page that states them, with why.
    static let ownFigures: [(file: String, figure: String, why: String)] = [
        ("docs/FORMAT.md", "1.26×", "what dictionary 1 does to the format's small records, measured on the format itself"),
        ("docs/FORMAT.md", "1.00×", "the same, without the dictionary"),
    ]

    @Test func noDocumentButPerformanceStatesARatioOrARate() throws {
        let root = RepositoryFixtures.root.deletingLastPathComponent()
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") && !$0.hasPrefix("PERFORMANCE") }.map { "docs/" + $0 }
        let files = ["README.md", "CONTRIBUTING.md", "SECURITY.md"] + docs
        #expect(files.count > 10)
        let figure = try Regex(#"\d(?:\.\d+)?×|\d[\d,.]*k? ?(?:events|sessions|chunks|reads|requests|records)/s"#)
        for file in files {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                for match in line.matches(of: figure) {
                    let found = String(line[match.range])
                    guard !Self.ownFigures.contains(where: { $0.file == file && $0.figure == found }) else { continue }
                    Issue.record("\(file):\(number + 1) states \(found): put the figure in docs/PERFORMANCE.md and link to it")
                }
            }
        }
    }
}
