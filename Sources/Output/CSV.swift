/// RFC 4180 fields: quoted when they hold a comma, a quote, CR or LF, with quotes doubled.
package enum CSV {
    package static func appendField(_ field: String, to out: inout [UInt8]) {
        var field = field
        field.withUTF8 { bytes in
            let needsQuotes = bytes.contains { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }
            guard needsQuotes else { out.append(contentsOf: bytes); return }
            out.append(0x22)
            for byte in bytes {
                if byte == 0x22 { out.append(0x22) }
                out.append(byte)
            }
            out.append(0x22)
        }
    }

    package static func appendRecord(_ fields: [String], to out: inout [UInt8]) {
        for (index, field) in fields.enumerated() {
            if index > 0 { out.append(0x2C) }
            appendField(field, to: &out)
        }
        out.append(contentsOf: [0x0D, 0x0A])
    }
}
