import SessionModel

/// The upcasters of old session event payloads, and the codec that applies them on read.
///
/// Store format upgrades live with the store (`EventLog.migrate(at:key:)`, run by
/// `sessionstore migrate`), because they rewrite the engine's own metadata; payload upcasters live
/// here because they know the dictation vocabulary. docs/FORMAT.md §10 lists both.
public enum SessionMigrations {
    /// Every upcaster of an old payload schema, one step each (docs/FORMAT.md §10).
    public static let upcasters: [SessionEventCodec.Upcaster] = [
        TranscriptCommittedSchema0.upcaster,
        RecordingChunkSchema1.upcaster,
    ]

    /// The codec every reader of session events should use.
    public static let codec = SessionEventCodec(upcasters: upcasters)
}
