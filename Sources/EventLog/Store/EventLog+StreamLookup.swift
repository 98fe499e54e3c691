import Foundation

extension EventLog {
    /// The streams whose id, in its lowercase hyphenated form, begins with `prefix` (case-insensitive),
    /// in id order: how a person's short id (`9130b126`) finds its stream. Reads the stream index and its
    /// unindexed tail (clear headers only: no key needed, erased streams included).
    public func streams(withIDPrefix prefix: String) throws -> [StreamID] {
        let prefix = prefix.lowercased()
        let wholeBytes = Self.leadingBytes(ofHexPrefix: prefix)
        return try reading { txn in
            var found = Set<StreamID>()
            try txn.withCursor(StoreLayout.streams) { cursor in
                var entry = try cursor.seek(atOrAfter: wholeBytes)
                while let (key, _) = entry, key.count == 16, key.starts(with: wholeBytes) {
                    let stream = StreamID(UUID(bytes: key))
                    if stream.description.hasPrefix(prefix) { found.insert(stream) }
                    entry = try cursor.next()
                }
            }
            for tailEntry in try StreamIndex.tail(in: txn) {
                let stream = StreamID(tailEntry.header.stream)
                if stream.description.hasPrefix(prefix) { found.insert(stream) }
            }
            return found.sorted { $0.description < $1.description }
        }
    }

    /// The whole bytes a hex prefix of a hyphenated UUID fixes (`9130b1` → [0x91, 0x30, 0xb1]).
    private static func leadingBytes(ofHexPrefix prefix: String) -> [UInt8] {
        var digits: [UInt8] = []
        for character in prefix {
            if character == "-" { continue }
            guard let value = character.hexDigitValue else { break }
            digits.append(UInt8(value))
        }
        return stride(from: 0, to: digits.count - 1, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }
}
