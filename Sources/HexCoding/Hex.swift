import Foundation

/// Lowercase hexadecimal, without a String per byte.
package enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// `bytes` as lowercase hexadecimal, two digits a byte.
    package static func string(_ bytes: some Collection<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            var index = 0
            for byte in bytes {
                buffer[index] = digits[Int(byte >> 4)]
                buffer[index + 1] = digits[Int(byte & 0x0F)]
                index += 2
            }
            return index
        }
    }

    /// A UUID in its canonical lowercase form, `3f2c8a1e-5b7d-4c9e-8f10-2a3b4c5d6e7f`.
    package static func uuid(_ uuid: UUID) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(36)
        appendUUID(uuid, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the canonical lowercase form of `uuid`.
    package static func appendUUID(_ uuid: UUID, to out: inout [UInt8]) {
        withUnsafeBytes(of: uuid.uuid) { bytes in
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 { out.append(UInt8(ascii: "-")) }
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0x0F)])
            }
        }
    }
}
