/// A store's subject-hashing key (sub-key 2, docs/FORMAT.md §3), taken to a new store so that both hash a person's id
/// alike: sessions pushed from one to the other (`sessionstore push`) keep their subjects, and erasing a subject in
/// either reaches them. Whoever holds it can test guesses of user ids against subject hashes: give it only to stores
/// kept as carefully as the one it came from.
public struct SubjectKey: Sendable {
    let bytes: SecureBytes

    init(_ bytes: SecureBytes) {
        self.bytes = bytes
    }

    /// Reads a subject key file: exactly 32 bytes, readable by its owner only, like a master key file.
    public static func read(from path: String) throws -> SubjectKey {
        SubjectKey(try MasterKeyFile.read(at: path))
    }

    /// Writes the key to a new file with mode 0600; refuses to overwrite anything.
    public func write(to path: String) throws {
        try MasterKeyFile.store(bytes, at: path)
    }

    /// The keyed hash of `identifier` under this key, as a store holding it hashes subjects.
    public func hash(_ identifier: String) -> [UInt8] {
        IdentifierHasher(key: bytes).hash(Array(identifier.utf8))
    }
}

extension EventLog {
    /// The key this store hashes subjects with, to create another store that hashes them alike
    /// (``create(at:key:subjectKey:options:)``).
    public func exportSubjectKey() -> SubjectKey {
        SubjectKey(keyHierarchy.subjectHashing)
    }

    /// The key that seals `sessionstore push`'s outbox of this store: derived from the master key (sub-key 7).
    package var pushOutboxKey: [UInt8] {
        keyHierarchy.pushOutbox.withUnsafeBytes { Array($0) }
    }
}
