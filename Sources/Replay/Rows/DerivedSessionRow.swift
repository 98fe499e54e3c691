import Output

/// A session `derive` made (or found made already) for a condition suite.
public struct DerivedSessionRow: OutputRow {
    public static let columns = ["session", "source", "condition", "speaker", "audio_ms", "appended", "duplicates", "labels"]

    public var derived: ConditionSuite.Derived

    public init(derived: ConditionSuite.Derived) {
        self.derived = derived
    }

    public func write(to fields: inout Fields) {
        fields.field("session", id: derived.session)
        fields.field("source", id: derived.source)
        fields.field("condition", derived.condition)
        fields.field("speaker", derived.labels["speaker"])
        fields.field("audio_ms", derived.audioMilliseconds)
        fields.field("appended", derived.appended)
        fields.field("duplicates", derived.duplicates)
        fields.field(labels: derived.labels)
    }
}
