internal import CCrypto

/// SHA-256, incrementally over several pieces: OpenSSL's libcrypto, which uses the CPU's SHA
/// extensions where there are some (leaf hashes and the Merkle tree hash every record twice or more).
public struct SHA256: Sendable {
    /// The length of a digest: 32 bytes.
    public static let digestBytes = 32
    private var state = SHA256_CTX()

    /// A hash of nothing yet.
    public init() {
        SHA256_Init(&state)
    }

    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        SHA256_Update(&state, bytes.baseAddress, bytes.count)
    }

    /// Adds `bytes` to what is hashed.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Adds the UTF-8 bytes of `string` to what is hashed.
    public mutating func update(_ string: String) {
        var string = string
        string.withUTF8 { update(UnsafeRawBufferPointer($0)) }
    }

    /// The length as 8 bytes, then the bytes: ("ab", "c") and ("a", "bc") hash differently.
    public mutating func updateField(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { updateField($0) }
    }

    package mutating func updateField(_ bytes: UnsafeRawBufferPointer) {
        withUnsafeBytes(of: UInt64(bytes.count).bigEndian) { update($0) }
        update(bytes)
    }

    /// The digest of everything so far; the hash can go on being updated (the state is copied).
    public func digest() -> [UInt8] {
        var copy = self
        var out = [UInt8](repeating: 0, count: Self.digestBytes)
        out.withUnsafeMutableBytes { copy.finish(into: $0) }
        return out
    }

    /// The SHA-256 digest of `bytes`.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var hash = SHA256()
        hash.update(bytes)
        return hash.digest()
    }

    mutating func update(byte: UInt8) {
        withUnsafeBytes(of: byte) { update($0) }
    }

    mutating func finish(into output: UnsafeMutableRawBufferPointer) {
        precondition(output.count == Self.digestBytes)
        SHA256_Final(output.bytes, &state)
    }

    static func hash(_ bytes: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        var hash = SHA256()
        hash.update(bytes)
        hash.finish(into: output)
    }
}
