import Foundation

/// Where a store is, as the API and the CLI take it: a directory (LMDB, the embedded default), a
/// `postgresql://` or `postgres://` URL (libpq's syntax, multi-host failover lists included; module
/// `EventLogPostgres`), or `memory:NAME` (this process's memory, gone when it ends). Which backend
/// opens one is ``StorageBackends``' choice.
package enum StoreLocation {
    /// The location as messages may show it: a URL's password replaced by `***`.
    package static func redacted(_ text: String) -> String {
        guard isURL(text) else { return text }
        var result = text
        if let scheme = result.range(of: "://") {
            let authorityEnd = result[scheme.upperBound...].firstIndex(where: { $0 == "/" || $0 == "?" }) ?? result.endIndex
            if let at = result[scheme.upperBound..<authorityEnd].lastIndex(of: "@"),
               let colon = result[scheme.upperBound..<at].firstIndex(of: ":") {
                result.replaceSubrange(result.index(after: colon)..<at, with: "***")
            }
        }
        if let range = result.range(of: "password=", options: .caseInsensitive) {
            let end = result[range.upperBound...].firstIndex(of: "&") ?? result.endIndex
            result.replaceSubrange(range.upperBound..<end, with: "***")
        }
        return result
    }

    /// Whether `a` and `b` name the same store: the same backend's, and the same for it (a directory
    /// with symbolic links resolved, a URL), `backends` besides the built-in ones.
    package static func same(_ a: String, _ b: String, backends: [any StorageBackend]) -> Bool {
        guard let backendA = try? StorageBackends.backend(for: a, among: backends), let backendB = try? StorageBackends.backend(for: b, among: backends),
              type(of: backendA) == type(of: backendB) else { return false }
        return backendA.same(a, b)
    }

    /// Whether `text` starts with a URL scheme (`scheme://`).
    package static func isURL(_ text: String) -> Bool {
        guard let separator = text.range(of: "://"), separator.lowerBound > text.startIndex else { return false }
        let scheme = text[..<separator.lowerBound]
        return scheme.first!.isLetter && scheme.allSatisfy { $0.isLetter || $0.isNumber || "+.-".contains($0) }
    }
}
