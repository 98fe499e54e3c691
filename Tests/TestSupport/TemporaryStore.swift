import EventLog
import Foundation

/// A fresh directory holding a key file and a store path, removed afterwards: `withTemporaryStore { store in … }`.
public struct TemporaryStore {
    public let root: URL
    public var storePath: String { root.appendingPathComponent("store").path }
    public var keyPath: String { root.appendingPathComponent("master.key").path }
    public var key: KeySource { .keyFile(keyPath) }

    public func create(_ options: EventLogOptions = EventLogOptions()) throws -> EventLog {
        try EventLog.create(at: storePath, key: key, options: options)
    }

    public func open(_ options: EventLogOptions = EventLogOptions()) throws -> EventLog {
        try EventLog.open(at: storePath, key: key, options: options)
    }

    public var dataFile: String { storePath + "/data.mdb" }
}

public func withTemporaryStore<R>(_ body: (TemporaryStore) async throws -> R) async throws -> R {
    let root = Scratch.url("eventlog-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    let store = TemporaryStore(root: root)
    try MasterKeyFile.create(at: store.keyPath)
    return try await body(store)
}

public func event(_ text: String, type: String = "note") -> ProposedEvent {
    ProposedEvent(type: type, data: Array(text.utf8))
}

extension RecordedEvent {
    public var text: String { String(decoding: data, as: UTF8.self) }
}
