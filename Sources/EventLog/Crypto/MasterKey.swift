internal import CSodium
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the 32-byte master key comes from. The key never goes into the store directory.
public enum KeySource: Sendable {
    /// A file of exactly 32 random bytes, readable by its owner only (mode 0600 or stricter).
    case keyFile(String)
    /// A passphrase stretched with Argon2id; the salt and cost are kept in the store.
    case passphrase(String)
}

/// Argon2id cost for a passphrase-derived master key, fixed when the store is created.
public struct PassphraseCost: Hashable, Sendable {
    /// Argon2id passes (libsodium's opslimit).
    public var operations: UInt64
    /// Argon2id memory in bytes (libsodium's memlimit).
    public var memoryBytes: Int

    /// libsodium's "moderate" limits: 3 passes over 256 MiB (about a second here).
    public static let moderate = PassphraseCost(
        operations: UInt64(crypto_pwhash_OPSLIMIT_MODERATE), memoryBytes: Int(crypto_pwhash_MEMLIMIT_MODERATE))
    /// libsodium's "interactive" limits: 2 passes over 64 MiB.
    public static let interactive = PassphraseCost(
        operations: UInt64(crypto_pwhash_OPSLIMIT_INTERACTIVE), memoryBytes: Int(crypto_pwhash_MEMLIMIT_INTERACTIVE))
}

/// Creating and reading key files, and stretching passphrases.
public enum MasterKeyFile {
    /// Writes 32 fresh random bytes to a new file with mode 0600; refuses to overwrite anything.
    public static func create(at path: String) throws {
        try store(SecureBytes.random(count: KeyHierarchy.masterKeyBytes), at: path)
    }

    /// Writes `key` to a new file with mode 0600; refuses to overwrite anything.
    static func store(_ key: SecureBytes, at path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = errno == EEXIST ? "it exists already; refusing to overwrite a key" : String(cString: strerror(errno))
            throw EventLogError(errno == EEXIST ? .alreadyExists : .keyFileUnusable,
                                "cannot create key file \(path): \(reason)", path: path)
        }
        defer { close(descriptor) }
        let written = key.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == KeyHierarchy.masterKeyBytes, fsync(descriptor) == 0 else {
            unlink(path)
            throw EventLogError(.keyFileUnusable, "cannot write key file \(path): \(String(cString: strerror(errno)))", path: path)
        }
    }

    /// Reads a key file, refusing one that others can read or that is not exactly 32 bytes.
    static func read(at path: String) throws -> SecureBytes {
        func unusable(_ reason: String) -> EventLogError {
            EventLogError(.keyFileUnusable, "key file \(path) \(reason)", path: path)
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw unusable("cannot be opened: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw unusable("cannot be examined: \(String(cString: strerror(errno)))") }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw unusable("is not a regular file") }
        if info.st_mode & 0o077 != 0 {
            throw unusable(String(format: "is readable by others (mode %o); run chmod 600 on it", info.st_mode & 0o777))
        }
        guard info.st_size == KeyHierarchy.masterKeyBytes else {
            throw unusable("holds \(info.st_size) bytes; a key file holds exactly \(KeyHierarchy.masterKeyBytes)")
        }
        var readCount = 0
        let key = SecureBytes(count: KeyHierarchy.masterKeyBytes) { out in
            readCount = posixRead(descriptor, out)
        }
        guard readCount == KeyHierarchy.masterKeyBytes else { throw unusable("could not be read in full") }
        return key
    }

    /// Stretches a passphrase into a master key with Argon2id 1.3.
    static func stretch(passphrase: String, salt: [UInt8], cost: PassphraseCost) throws -> SecureBytes {
        Sodium.initialise()
        let utf8 = Array(passphrase.utf8)
        guard !utf8.isEmpty else { throw EventLogError(.invalidArgument, "the passphrase is empty") }
        var failed = false
        let key = SecureBytes(count: KeyHierarchy.masterKeyBytes) { out in
            failed = utf8.withUnsafeBufferPointer { password in
                password.withMemoryRebound(to: CChar.self) { password in
                    crypto_pwhash(out.bytes, UInt64(out.count), password.baseAddress!, UInt64(password.count), salt,
                                  cost.operations, cost.memoryBytes, crypto_pwhash_ALG_ARGON2ID13) != 0
                }
            }
        }
        if failed { throw EventLogError(.storage, "Argon2id ran out of memory stretching the passphrase") }
        return key
    }

    static let saltBytes = Int(crypto_pwhash_SALTBYTES)
}

/// `read(2)`, reachable from inside types that have a `read` member of their own.
private func posixRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
    read(descriptor, buffer.baseAddress, buffer.count)
}
