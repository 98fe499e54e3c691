/// Whole messages to and from bytes.
enum WireCodec {
    /// Decodes a message on its own (nested messages), skipping unknown fields.
    static func decodeMessage<P: WirePayload>(_ type: P.Type, from bytes: UnsafeRawBufferPointer) throws -> P {
        var payload = P()
        try WireReader.readFields(of: bytes) { field, wireType, reader in
            if try !payload.read(field, wireType, from: &reader) { try reader.skip(wireType) }
        }
        return payload
    }
}
