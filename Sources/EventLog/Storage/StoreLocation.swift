import Foundation

/// Where a store is, as the API and the CLI take it: a directory (LMDB, the embedded default), a
/// `postgresql://` or `postgres://` URL (libpq's syntax, multi-host failover lists included), or
/// `memory:NAME` (this process's memory, gone when it ends).
enum StoreLocation {
    case directory(String)
    case postgres(url: String)
    case memory(name: String)

    init(_ text: String) {
        let lowered = text.lowercased()
        if lowered.hasPrefix("postgresql://") || lowered.hasPrefix("postgres://") {
            self = .postgres(url: text)
        } else if lowered.hasPrefix("memory:") {
            self = .memory(name: String(text.dropFirst("memory:".count)))
        } else {
            self = .directory(text)
        }
    }

    /// The location as messages may show it: a URL's password replaced by `***`.
    static func redacted(_ text: String) -> String {
        guard case .postgres(let url) = StoreLocation(text) else { return text }
        var result = url
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

    /// Whether `a` and `b` name the same store: the same directory (symbolic links resolved), or the
    /// same URL.
    static func same(_ a: String, _ b: String) -> Bool {
        switch (StoreLocation(a), StoreLocation(b)) {
        case (.directory(let a), .directory(let b)):
            URL(fileURLWithPath: a).standardizedFileURL.resolvingSymlinksInPath() == URL(fileURLWithPath: b).standardizedFileURL.resolvingSymlinksInPath()
        case (.postgres(let a), .postgres(let b)):
            redacted(a) == redacted(b)
        case (.memory(let a), .memory(let b)):
            a == b
        default:
            false
        }
    }
}
