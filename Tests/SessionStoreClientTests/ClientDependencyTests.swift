import Foundation
import TestSupport
import Testing

/// An iOS app adds SessionStoreClient with SwiftPM alone: nothing it depends on, in this package or any other, is a
/// system library (a `.systemLibrary` target, which needs a C library installed on the machine).
@Suite(.timeLimit(.minutes(10))) struct ClientDependencyTests {
    @Test func theClientsDependencyClosureHoldsNoSystemLibrary() async throws {
        let reached = try await offThePool {
            var walk = ManifestWalk()
            return try walk.targets(from: "SessionStoreClient", in: ManifestWalk.root)
        }
        #expect(reached.contains { $0.package == "swift-crypto" }, "the walk reaches the client's dependencies: \(reached.map(\.name).sorted())")
        #expect(reached.filter(\.isSystemLibrary).map(\.name) == [])
    }

    /// An iOS UI-test target adds SessionStoreTesting with SwiftPM alone too (issue 66).
    @Test func theTestingLibraryDependsOnNothingButFoundation() async throws {
        let reached = try await offThePool {
            var walk = ManifestWalk()
            return try walk.targets(from: "SessionStoreTesting", in: ManifestWalk.root)
        }
        #expect(reached.map(\.name) == ["SessionStoreTesting"])
    }

    @Test func theSameWalkFindsTheSystemLibrariesOfTheStoresEngine() async throws {
        let reached = try await offThePool {
            var walk = ManifestWalk()
            return try walk.targets(from: "EventLog", in: ManifestWalk.root)
        }
        #expect(Set(reached.filter(\.isSystemLibrary).map(\.name)) == ["CLMDB", "CSodium", "CZstd", "CCrypto"])
    }
}

/// Targets reached from one target through every dependency (any platform's, any trait's), across packages, read
/// from `swift package dump-package` of this package and of each checkout.
struct ManifestWalk {
    struct Target: Hashable, Sendable {
        var package: String
        var name: String
        var isSystemLibrary: Bool
    }

    static let root = "."
    private var manifests: [String: [String: Any]] = [:]

    mutating func targets(from name: String, in package: String) throws -> Set<Target> {
        var reached = Set<Target>()
        var queue = [(package, name)]
        var seen = Set<String>()
        while let (package, name) = queue.popLast() {
            guard seen.insert("\(package)/\(name)").inserted else { continue }
            let manifest = try self.manifest(package)
            let targets = manifest["targets"] as? [[String: Any]] ?? []
            guard let target = targets.first(where: { $0["name"] as? String == name }) else {
                // A product's name: its targets.
                let product = try #require((manifest["products"] as? [[String: Any]] ?? []).first { $0["name"] as? String == name },
                                           "\(package) has no target or product \(name)")
                queue += (product["targets"] as? [String] ?? []).map { (package, $0) }
                continue
            }
            reached.insert(Target(package: package, name: name, isSystemLibrary: target["type"] as? String == "system"))
            for dependency in target["dependencies"] as? [[String: Any]] ?? [] {
                if let named = (dependency["byName"] ?? dependency["target"]) as? [Any], let other = named.first as? String {
                    queue.append((package, other))
                } else if let product = dependency["product"] as? [Any], let other = product.first as? String, let owner = product[1] as? String {
                    queue.append((owner.lowercased(), other))
                }
            }
        }
        return reached
    }

    private mutating func manifest(_ package: String) throws -> [String: Any] {
        if let known = manifests[package] { return known }
        let repository = RepositoryFixtures.root.deletingLastPathComponent()
        let directory = package == Self.root ? repository : repository.appendingPathComponent(".build/checkouts/\(package)")
        let scratch = Scratch.url("manifest-walk-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let swift = URL(fileURLWithPath: try #require(ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":")
            .map { "\($0)/swift" }.first { FileManager.default.isExecutableFile(atPath: $0) }, "swift on the PATH"))
        let dumped = try ChildProcess.run(swift, ["package", "--package-path", directory.path, "--scratch-path", scratch.path, "dump-package"],
                                          directory: repository, limit: .seconds(300))
        try #require(dumped.status == 0, "swift package dump-package of \(package): \(dumped.stderr)")
        let manifest = try #require(try JSONSerialization.jsonObject(with: dumped.stdout) as? [String: Any])
        manifests[package] = manifest
        return manifest
    }
}
