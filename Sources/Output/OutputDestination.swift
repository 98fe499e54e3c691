#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a user's output path points to, and so how it may be written.
///
/// Only a regular file (or nothing yet) is replaced: written beside it and renamed into place when the
/// command succeeds. A device (`/dev/null`), a FIFO or a name for an open descriptor (`/dev/stdout`,
/// `/dev/fd/63` from bash's `>(…)`) is written in place and never unlinked or renamed over: a rename
/// over `/dev/null` as root replaces the machine's device node with a regular file.
public enum OutputDestination: Equatable, Sendable {
    /// A regular file or a missing one: write beside `path` and rename onto it on success. For a
    /// symbolic link to a regular file, `path` is the file the link resolves to, so the link survives.
    case replace(path: String)
    /// An already open descriptor named by the path (`-`, `/dev/stdout`, `/dev/fd/N`): write to a duplicate.
    case descriptor(Int32)
    /// A device, FIFO or dangling link: open and write in place; never truncated unless `truncate`.
    case inPlace(path: String, truncate: Bool)

    /// Names that the system resolves to a descriptor of this process: written through that descriptor,
    /// so that its offset and append mode are kept (opening `/proc/self/fd/1` anew would start at 0).
    private static func openDescriptor(named path: String) -> Int32? {
        switch path {
        case "-", "/dev/stdout": return 1
        case "/dev/stderr": return 2
        default:
            for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
                return Int32(path.dropFirst(prefix.count))
            }
            return nil
        }
    }

    /// Classifies `path` without changing anything.
    /// - Throws: ``OutputError/Code-swift.struct/cannotCreate`` when the path is a directory or a socket.
    public static func of(_ path: String) throws(OutputError) -> OutputDestination {
        if let descriptor = openDescriptor(named: path) { return .descriptor(descriptor) }
        var status = stat()
        guard lstat(path, &status) == 0 else {
            guard errno == ENOENT else {
                throw OutputError(.cannotCreate, "cannot write \(path): \(SystemCalls.lastError)", path: path)
            }
            return .replace(path: path)
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            return .replace(path: path)
        case S_IFLNK:
            return try ofLinkTarget(path)
        default:
            return try ofSpecialFile(path, mode: status.st_mode)
        }
    }

    private static func ofLinkTarget(_ path: String) throws(OutputError) -> OutputDestination {
        var target = stat()
        guard stat(path, &target) == 0 else {
            // A dangling link: creating through it keeps the link and makes the file it names.
            return .inPlace(path: path, truncate: true)
        }
        guard target.st_mode & S_IFMT == S_IFREG else { return try ofSpecialFile(path, mode: target.st_mode) }
        guard let resolved = realpath(path, nil) else {
            throw OutputError(.cannotCreate, "cannot write \(path): \(SystemCalls.lastError)", path: path)
        }
        defer { free(resolved) }
        let resolvedPath = String(cString: resolved)
        // A link into /proc names another process's descriptor or this one's: never rename there.
        if resolvedPath.hasPrefix("/proc/") { return .inPlace(path: path, truncate: false) }
        return .replace(path: resolvedPath)
    }

    private static func ofSpecialFile(_ path: String, mode: mode_t) throws(OutputError) -> OutputDestination {
        switch mode & S_IFMT {
        case S_IFDIR:
            throw OutputError(.cannotCreate, "cannot write \(path): it is a directory; name a file in it", path: path)
        case S_IFSOCK:
            throw OutputError(.cannotCreate, "cannot write \(path): it is a socket, which cannot be opened as a file",
                              path: path)
        default:
            return .inPlace(path: path, truncate: false)
        }
    }
}
