import SessionModel

/// `recording.chunk` schema 1 stored raw PCM in field 10 only. Schema 2 added FLAC-coded audio
/// (field 11) and the frame count (field 12) and still reads field 10, so a schema-1 payload is a
/// valid schema-2 payload as it is.
enum RecordingChunkSchema1 {
    static let upcaster = SessionEventCodec.Upcaster(type: .recordingChunk, fromVersion: 1) { $0 }
}
