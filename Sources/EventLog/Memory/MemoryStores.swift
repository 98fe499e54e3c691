import Foundation

/// The package's tests' view of `memory:` stores: what one keeps, and forgetting one.
package enum MemoryStores {
    /// Every table of the memory store at `location` with its keys and values, as the bytes a reader
    /// of the process's memory could find.
    package static func contents(of location: String) -> [(name: String, bytes: Data)] {
        guard let name = MemoryBackend.name(of: location) else { return [] }
        return MemoryStorage.tables(of: name).sorted { $0.key < $1.key }.map { name, table in
            var bytes = Data()
            for (key, value) in zip(table.keys, table.values) {
                bytes.append(contentsOf: key.view)
                bytes.append(contentsOf: value.view)
            }
            return (name, bytes)
        }
    }

    /// Forgets the memory store at `location`; its memory goes once no log has it open.
    package static func remove(_ location: String) {
        if let name = MemoryBackend.name(of: location) { MemoryStorage.remove(name) }
    }
}
