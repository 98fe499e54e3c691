import CSealing
import Foundation

/// EventLog's sealing (Sources/CSealing) for Swift benchmarks: the GRDB peer's application side, the
/// PostgreSQL client measurement's records. One sealer holds buffers: use it from one thread at a time
/// (inside a pool's writes, which GRDB runs one at a time, or by one reader).
public final class Sealer: @unchecked Sendable {
    private let sealer: OpaquePointer
    private var record = [UInt8](repeating: 0, count: 1 << 21)

    public init(dictionary: [UInt8]) {
        var key = [UInt8](repeating: 0, count: 32)
        var storeID = [UInt8](repeating: 0, count: 16)
        sealer_random_bytes(&key, key.count)
        sealer_random_bytes(&storeID, storeID.count)
        guard let sealer = sealer_create(key, storeID, dictionary, dictionary.count) else { fatalError("libsodium does not start") }
        self.sealer = sealer
    }

    deinit { sealer_free(sealer) }

    public static func randomBase() -> Data {
        var base = [UInt8](repeating: 0, count: 24)
        sealer_random_bytes(&base, base.count)
        return Data(base)
    }

    public func seal(position: Int64, base: Data, stream: [UInt8], version: Int, type: String, data: [UInt8]) -> Data {
        let capacity = record.count
        let length = base.withUnsafeBytes { base in
            record.withUnsafeMutableBufferPointer { record in
                sealer_seal(sealer, UInt64(position), base.baseAddress, stream, UInt64(version), type, data, data.count,
                            record.baseAddress, capacity)
            }
        }
        precondition(length > 0, "an event of \(data.count) bytes does not fit a record")
        return Data(record[0..<length])
    }

    /// Opens the record at `position` and returns its body's length.
    public func open(position: Int64, base: Data, record: Data) throws -> Int {
        let length = base.withUnsafeBytes { base in
            record.withUnsafeBytes { record in
                var body: UnsafePointer<UInt8>?
                return sealer_open(sealer, UInt64(position), base.baseAddress, record.baseAddress, record.count, &body)
            }
        }
        guard length >= 0 else { throw PeerError.damaged(position) }
        return length
    }
}

public enum PeerError: Error, CustomStringConvertible {
    case damaged(Int64)
    case noNonceBase(Int64)

    public var description: String {
        switch self {
        case .damaged(let position): "the record at position \(position) does not open"
        case .noNonceBase(let position): "no nonce base covers position \(position)"
        }
    }
}
