import Foundation
import Testing
import TestSupport

/// docs/ARCHITECTURE.md's module map is Package.swift's: every module, what it imports of the package, and whether it
/// is a product. A module added, a dependency changed or a product made without the map following fails here.
@Suite struct ArchitectureMapTests {
    struct Module: Equatable, CustomStringConvertible {
        var kind: String
        var imports: Set<String>
        var description: String { "\(kind), imports \(imports.sorted().joined(separator: ", "))" }
    }

    /// The C shims, which the map names in its text, not as rows.
    static let shims: Set<String> = ["CLMDB", "CSodium", "CZstd", "CCrypto", "CLibPQ", "CSndFile"]

    /// The modules as the map states them.
    static func documented() throws -> [String: Module] {
        let text = try String(contentsOf: RepositoryFixtures.root.deletingLastPathComponent().appendingPathComponent("docs/ARCHITECTURE.md"),
                              encoding: .utf8)
        let start = try #require(text.range(of: "<!-- module map"), "the map's start marker")
        let end = try #require(text.range(of: "<!-- end of module map -->"), "the map's end marker")
        var modules: [String: Module] = [:]
        for line in text[start.upperBound..<end.lowerBound].split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            let name = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let imports = cells[3] == "—" ? [] : Set(cells[3].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            modules[name] = Module(kind: cells[2], imports: imports)
        }
        return modules
    }

    /// The modules as Package.swift declares them (every target but the tests', the C shims and the tests' helpers).
    static func declared() throws -> [String: Module] {
        let scratch = Scratch.url("architecture-map-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let swift = URL(fileURLWithPath: try #require(ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":")
            .map { "\($0)/swift" }.first { FileManager.default.isExecutableFile(atPath: $0) }, "swift on the PATH"))
        let dumped = try ChildProcess.run(swift, ["package", "--scratch-path", scratch.path, "dump-package"],
                                          directory: RepositoryFixtures.root.deletingLastPathComponent(), limit: .seconds(300))
        try #require(dumped.status == 0, "swift package dump-package: \(dumped.stderr)")
        let package = try #require(try JSONSerialization.jsonObject(with: dumped.stdout) as? [String: Any])
        let targets = try #require(package["targets"] as? [[String: Any]])
        let products = (package["products"] as? [[String: Any]] ?? []).filter { ($0["type"] as? [String: Any])?["library"] != nil }
        let productTargets = Set(products.flatMap { $0["targets"] as? [String] ?? [] })
        let names = Set(targets.compactMap { $0["name"] as? String })
        var modules: [String: Module] = [:]
        for target in targets {
            guard let name = target["name"] as? String, let type = target["type"] as? String,
                  type != "test", type != "system", name != "TestSupport" else { continue }
            let imports = (target["dependencies"] as? [[String: Any]] ?? []).compactMap { dependency -> String? in
                let named = (dependency["byName"] ?? dependency["target"]) as? [Any]
                return (named?.first as? String).flatMap { names.contains($0) ? $0 : nil }
            }
            let kind = type == "executable" ? "executable" : productTargets.contains(name) ? "product" : "package"
            modules[name] = Module(kind: kind, imports: Set(imports))
        }
        return modules
    }

    @Test(.timeLimit(.minutes(5)))
    func theModuleMapOfArchitectureIsThePackagesOwn() throws {
        let (documented, declared) = (try Self.documented(), try Self.declared())
        #expect(declared.count >= 20, "\(declared.keys.sorted())")
        for (name, module) in declared.sorted(by: { $0.key < $1.key }) {
            #expect(documented[name] == module, "\(name): Package.swift says \(module), the map says \(documented[name].map(\.description) ?? "nothing")")
        }
        for name in Set(documented.keys).subtracting(declared.keys) {
            Issue.record("the map names \(name), which Package.swift does not have")
        }
    }

    @Test func aModuleImportsOnlyModulesAboveItInTheMap() throws {
        let text = try String(contentsOf: RepositoryFixtures.root.deletingLastPathComponent().appendingPathComponent("docs/ARCHITECTURE.md"),
                              encoding: .utf8)
        let order = text.split(separator: "\n").filter { $0.hasPrefix("| `") }.compactMap { line in
            line.split(separator: "`").dropFirst().first.map(String.init)
        }
        let documented = try Self.documented()
        for (index, name) in order.enumerated() {
            let above = Set(order.prefix(index))
            for imported in documented[name]?.imports ?? [] where !Self.shims.contains(imported) {
                #expect(above.contains(imported), "\(name) imports \(imported), which the map places below it")
            }
        }
    }
}
