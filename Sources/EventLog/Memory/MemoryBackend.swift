import Foundation

/// Stores in this process's memory, named by `memory:NAME` locations (``MemoryStorage``).
struct MemoryBackend: StorageBackend {
    static let prefix = "memory:"

    /// The store name of a `memory:NAME` location; nil for any other location.
    static func name(of location: String) -> String? {
        location.lowercased().hasPrefix(prefix) ? String(location.dropFirst(prefix.count)) : nil
    }

    func serves(_ location: String) -> Bool { Self.name(of: location) != nil }

    func open(_ location: String, _ mode: OpenMode, options: EventLogOptions) throws -> any StorageEnvironment {
        let storage = try MemoryStorage.named(Self.name(of: location) ?? location, creating: { if case .creating = mode { true } else { false } }())
        let timeout: Duration? = if case .exclusive(let timeout) = mode { timeout } else { nil }
        return try MemoryEnvironment(storage, exclusiveWaitingUpTo: timeout)
    }

    func same(_ a: String, _ b: String) -> Bool { Self.name(of: a) == Self.name(of: b) }
}

extension MemoryEnvironment: StorageEnvironment {
    func withSnapshot<R>(_ body: (any StorageTransaction) throws -> R) throws -> R {
        try storage.read(body)
    }

    func withWriteTransaction<R>(readingAhead reads: KeyReads, rerunnable: Bool, _ body: (any StorageTransaction) throws -> R) throws -> R {
        try storage.write(body)
    }

    func sync() throws {}

    var tailDirectory: TailDirectory? { storage.tailDirectory }

    func hasDatabase(_ name: String) -> Bool { StoreLayout.all.contains(name) }

    func sizes() throws -> StorageSizes { StorageSizes(bytes: UInt64(storage.byteCount)) }

    /// Nothing deleted is kept.
    func compactInPlace() throws -> (before: UInt64, after: UInt64) {
        let bytes = UInt64(storage.byteCount)
        return (bytes, bytes)
    }
}
