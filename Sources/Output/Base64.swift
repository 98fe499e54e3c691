/// Standard base64 (RFC 4648 §4, with padding) written straight into an output line. Foundation's
/// encoder returns a new String or Data for every value; an hour of audio chunks is 180 MB of base64,
/// and the extra allocation, copy and JSON escape scan of each chunk cost more than the encoding.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Appends the base64 text of `bytes` to `out`. Its characters never need escaping, in JSON or CSV.
    static func append(_ bytes: [UInt8], to out: inout [UInt8]) {
        let start = out.count, length = (bytes.count + 2) / 3 * 4
        out.append(contentsOf: repeatElement(0, count: length))
        alphabet.withUnsafeBufferPointer { alphabet in
            bytes.withUnsafeBufferPointer { bytes in
                out.withUnsafeMutableBufferPointer { out in
                    var index = 0, next = start
                    func put(_ triple: UInt32, _ significant: Int) {
                        out[next] = alphabet[Int(triple >> 18)]
                        out[next + 1] = alphabet[Int(triple >> 12 & 0x3F)]
                        out[next + 2] = significant > 1 ? alphabet[Int(triple >> 6 & 0x3F)] : UInt8(ascii: "=")
                        out[next + 3] = significant > 2 ? alphabet[Int(triple & 0x3F)] : UInt8(ascii: "=")
                        next += 4
                    }
                    while index + 3 <= bytes.count {
                        put(UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2]), 3)
                        index += 3
                    }
                    switch bytes.count - index {
                    case 2: put(UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8, 2)
                    case 1: put(UInt32(bytes[index]) << 16, 1)
                    default: break
                    }
                }
            }
        }
    }

    /// The base64 text of `bytes`.
    static func string(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        append(bytes, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
