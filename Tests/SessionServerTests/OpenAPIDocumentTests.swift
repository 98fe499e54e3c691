import Foundation
import Hummingbird
import SessionServer
import Testing
import TestSupport

/// docs/openapi.yaml describes the server the code builds: every route and method, and nothing else.
@Suite struct OpenAPIDocumentTests {
    /// "GET /v1/sessions/{session}" for each operation under `paths:` of the document.
    static func documentedOperations() throws -> Set<String> {
        let url = RepositoryFixtures.root.deletingLastPathComponent().appendingPathComponent("docs/openapi.yaml")
        var operations: Set<String> = []
        var path: String?
        var inPaths = false
        for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "paths:" { inPaths = true; continue }
            if inPaths, !line.isEmpty, !line.hasPrefix(" ") { break }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") { path = String(line.dropFirst(2).dropLast()) }
            for method in ["get", "post", "put", "delete", "patch"] where line == "    \(method):" {
                operations.insert("\(method.uppercased()) \(path ?? "?")")
            }
        }
        return operations
    }

    @Test func everyRouteOfTheServerIsDocumentedAndEveryDocumentedRouteExists() async throws {
        try await withTemporaryStore { store in
            let router = SessionServer(log: try store.create()).router()
            // The console's pages (/ui) are HTML for browsers, not API: docs/CONSOLE.md lists them.
            let served = Set(router.routes.filter { !$0.path.description.hasPrefix("/ui") && !$0.path.description.hasPrefix("ui") }.map { route in
                let path = route.path.description.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
                return "\(route.method) /" + path.joined(separator: "/")
            })
            let documented = try Self.documentedOperations()
            #expect(documented.count >= 9)
            #expect(served.subtracting(documented).isEmpty, "served but not in docs/openapi.yaml: \(served.subtracting(documented).sorted())")
            #expect(documented.subtracting(served).isEmpty, "in docs/openapi.yaml but not served: \(documented.subtracting(served).sorted())")
        }
    }

    @Test(.enabled(if: pythonTestEnabled("openapi_spec_validator, yaml")))
    func theDocumentIsValidOpenAPIToAnIndependentValidator() throws {
        try requirePython("openapi_spec_validator, yaml")
        let document = RepositoryFixtures.root.deletingLastPathComponent().appendingPathComponent("docs/openapi.yaml").path
        let checked = try runPython(["-c", """
            import sys, yaml
            from openapi_spec_validator import validate
            validate(yaml.safe_load(open(sys.argv[1])))
            print("valid")
            """, document])
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(String(decoding: checked.stdout, as: UTF8.self) == "valid\n")
    }
}
