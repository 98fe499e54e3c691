import Failures
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Creating a store's meta data and checking it when a store is opened.
enum StoreOpening {
    /// Argon2id parameters in `meta` under `kdf` (33 bytes):
    /// `algorithm u8 (2 = Argon2id 1.3) | operations u64 | memory bytes u64 | salt 16`.
    static let argon2idAlgorithm: UInt8 = 2

    static func keyCheckAdditionalData(_ storeID: [UInt8]) -> [UInt8] { Array("key-check".utf8) + storeID }

    /// Checks that `directory` may become a store (it does not exist, or is empty), before anything is created.
    static func checkNewDirectory(_ directory: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue, (try? FileManager.default.contentsOfDirectory(atPath: directory))?.isEmpty == true else {
                let what = isDirectory.boolValue ? "is a directory that is not empty" : "is a file, not a directory"
                throw EventLogError(.alreadyExists, "\(directory) \(what); refusing to create a store there (name a new or empty directory)",
                                    path: directory)
            }
        }
    }

    /// Makes `path` a directory a store can be made or finished in: created (private) when missing,
    /// refused when it exists and is neither empty nor a store (an unfinished copy is one).
    static func prepareDirectoryForStore(_ path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            let contents = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            guard isDirectory.boolValue, contents.isEmpty || contents.contains(StoreLayout.dataFileName) else {
                throw EventLogError(.alreadyExists, "\(path) exists and is neither an empty directory nor a store; refusing to make a store there",
                                    path: path)
            }
        } else {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw EventLogError(.storeUnusable, "cannot create the directory \(path): \(fileErrorReason(error))", path: path,
                                    underlying: error)
            }
        }
    }

    /// A new, private directory beside `directory`: `.NAME.creating-UUID`.
    static func makeStagingDirectory(for directory: String) throws -> String {
        let target = URL(fileURLWithPath: directory).standardizedFileURL
        let parent = target.deletingLastPathComponent()
        let staging = parent.appendingPathComponent(".\(target.lastPathComponent).creating-\(UUID().uuidString)").path
        do {
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw EventLogError(.storeUnusable, "cannot create the store directory \(directory): \(fileErrorReason(error))",
                                path: directory, underlying: error)
        }
        return staging
    }

    /// Renames the finished store into place (over an empty directory, if one is there) and syncs
    /// the parent directory so that the rename is durable.
    static func moveIntoPlace(_ staging: String, _ directory: String) throws {
        guard rename(staging, directory) == 0 else {
            let reason = String(cString: strerror(errno))
            throw EventLogError(errno == ENOTEMPTY || errno == EEXIST ? .alreadyExists : .storeUnusable,
                                "cannot move the new store into \(directory): \(reason)", path: directory)
        }
        let parent = URL(fileURLWithPath: directory).standardizedFileURL.deletingLastPathComponent().path
        let descriptor = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if descriptor >= 0 {
            fsync(descriptor)
            close(descriptor)
        }
    }

    /// The master key must never sit in the store directory, where a copy of the store would carry it.
    static func refuseKeyInside(_ directory: String, of backend: any StorageBackend, keyPath: String) throws {
        guard backend.isDirectory else { return }  // a database never sees the key
        let store = URL(fileURLWithPath: directory).standardizedFileURL.resolvingSymlinksInPath().path
        let key = URL(fileURLWithPath: keyPath).standardizedFileURL.resolvingSymlinksInPath().path
        if key.hasPrefix(store + "/") {
            throw EventLogError(.keyFileUnusable, "the key file \(keyPath) is inside the store directory \(directory); keep the key elsewhere",
                                path: keyPath)
        }
    }

    /// Writes the meta data of a new store and its audit key; returns the master key.
    static func initialise(in txn: StoreTransaction, keySource: KeySource, masterFromFile: SecureBytes?, subjectKey: SubjectKey?,
                           options: EventLogOptions) throws -> SecureBytes {
        let storeID = UUID().bytes
        let master: SecureBytes
        switch keySource {
        case .keyFile:
            master = masterFromFile!
        case .passphrase(let passphrase):
            let salt = Sodium.randomBytes(count: MasterKeyFile.saltBytes)
            let cost = options.passphraseCost
            master = try MasterKeyFile.stretch(passphrase: passphrase, salt: salt, cost: cost)
            try txn.put(StoreLayout.meta, StoreLayout.passphraseKDFKey, kdfEntry(cost: cost, salt: salt))
        }
        let hierarchy = KeyHierarchy(master: master)
        try txn.put(StoreLayout.meta, StoreLayout.formatKey, [UInt8](bigEndian: StoreLayout.formatVersion))
        try txn.put(StoreLayout.meta, StoreLayout.storeIDKey, storeID)
        try txn.put(StoreLayout.meta, StoreLayout.createdAtKey, [UInt8](bigEndian: options.clock()))
        let check = [UInt8](repeating: 0, count: 32).withUnsafeBytes {
            AEAD.sealBox($0, additionalData: keyCheckAdditionalData(storeID), key: hierarchy.keyCheck)
        }
        try txn.put(StoreLayout.meta, StoreLayout.keyCheckKey, check)
        if let subjectKey {
            let adopted = KeyHierarchy(master: master, stable: (subjectKey.bytes, hierarchy.checkpointSigning))
            try txn.put(StoreLayout.meta, StoreLayout.stableKeysKey, adopted.wrappedStableKeys(storeID: storeID))
        }
        _ = try KeyRing(hierarchy: hierarchy, storeID: storeID).createKey(KeyRing.auditKeyID, in: txn)
        try txn.put(StoreLayout.meta, StoreLayout.nextKeyIDKey, [UInt8](bigEndian: KeyRing.auditKeyID + 1))
        try StoreTotals().write(in: txn)
        return master
    }

    /// `meta/kdf`: `algorithm u8 | operations u64 | memory bytes u64 | salt 16`.
    static func kdfEntry(cost: PassphraseCost, salt: [UInt8]) -> [UInt8] {
        [argon2idAlgorithm] + [UInt8](bigEndian: cost.operations) + [UInt8](bigEndian: UInt64(cost.memoryBytes)) + salt
    }

    static func format(in txn: StoreTransaction) throws -> UInt32 {
        guard let bytes = try txn.get(StoreLayout.meta, StoreLayout.formatKey), bytes.count == 4 else {
            if try txn.get(StoreLayout.meta, StoreLayout.copyOfKey) != nil {
                throw EventLogError(.storeUnusable, "the store is an unfinished copy; run `sessionstore copy` to it again to finish it")
            }
            throw EventLogError(.storeUnusable, "the store has no format version; it is not a SessionStore store")
        }
        return bytes.loadBigEndian(at: 0)
    }

    static func checkFormat(in txn: StoreTransaction) throws {
        let format = try format(in: txn)
        if format < StoreLayout.formatVersion {
            throw EventLogError(.migrationRequired,
                                "the store has format \(format), older than this build's \(StoreLayout.formatVersion), and must be migrated")
        }
        if format > StoreLayout.formatVersion {
            throw EventLogError(.unsupportedFormat,
                                "the store has format \(format), newer than this build's \(StoreLayout.formatVersion); open it with a newer build")
        }
    }

    static func storeID(in txn: StoreTransaction) throws -> [UInt8] {
        guard let bytes = try txn.get(StoreLayout.meta, StoreLayout.storeIDKey), bytes.count == 16 else {
            throw EventLogError(.storeUnusable, "the store has no valid store id")
        }
        return Array(bytes)
    }

    /// The master key from the key file, or from the passphrase with the store's salt and cost.
    static func masterKey(for source: KeySource, directory: String, of backend: any StorageBackend,
                          in txn: StoreTransaction) throws -> SecureBytes {
        let kdf = try txn.get(StoreLayout.meta, StoreLayout.passphraseKDFKey).map { Array($0) }
        switch source {
        case .keyFile(let path):
            guard kdf == nil else {
                throw EventLogError(.wrongKey, "this store's key comes from a passphrase, not a key file; use --passphrase-env")
            }
            try refuseKeyInside(directory, of: backend, keyPath: path)
            return try MasterKeyFile.read(at: path)
        case .passphrase(let passphrase):
            guard let kdf else {
                throw EventLogError(.wrongKey, "this store's key is in a key file, not derived from a passphrase; use --key-file")
            }
            guard kdf.count == 33, kdf[0] == argon2idAlgorithm else {
                throw EventLogError(.storeUnusable, "the store's passphrase parameters are malformed")
            }
            let cost = kdf.withUnsafeBytes {
                PassphraseCost(operations: $0.loadBigEndian(at: 1), memoryBytes: Int($0.loadBigEndian(at: 9, as: UInt64.self)))
            }
            return try MasterKeyFile.stretch(passphrase: passphrase, salt: Array(kdf[17...]), cost: cost)
        }
    }

    /// Fails with `wrongKey` unless the key check in `meta` opens under this master key.
    static func checkKey(_ hierarchy: KeyHierarchy, storeID: [UInt8], in txn: StoreTransaction) throws {
        guard let check = try txn.get(StoreLayout.meta, StoreLayout.keyCheckKey) else {
            throw EventLogError(.storeUnusable, "the store has no key check")
        }
        guard AEAD.openBox(check, additionalData: keyCheckAdditionalData(storeID), key: hierarchy.keyCheck) != nil else {
            throw EventLogError(.wrongKey, "the key does not open this store (wrong key file or passphrase)")
        }
    }
}
