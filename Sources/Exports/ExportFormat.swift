/// What an export writes.
public enum ExportFormat: String, CaseIterable, Sendable {
    /// One document `{"schema_version": 1, "sessions": […]}` (docs/export.schema.json).
    case json
    /// RFC 4180 CSV, one row per committed segment.
    case csv
    /// WebVTT subtitles, one cue per committed segment (one session per file).
    case vtt
    /// SubRip subtitles, one cue per committed segment (one session per file).
    case srt

    /// The file name extension.
    public var fileExtension: String { rawValue }
}

/// How an export treats its content.
public struct ExportOptions: Sendable {
    /// CSV: also the superseded partial revisions of each segment, with an `is_final` column.
    public var partials = false
    /// CSV: a UTF-8 BOM for Excel, and cells that a spreadsheet would run as a formula defanged with a
    /// leading `'` (OWASP CSV injection).
    public var excel = false
    /// Transcript text (segments and words) replaced by `[REDACTED]`; times, ids and hashes kept.
    public var redact = false

    /// Plain exports: no partials, no BOM, text as stored.
    public init(partials: Bool = false, excel: Bool = false, redact: Bool = false) {
        self.partials = partials
        self.excel = excel
        self.redact = redact
    }

    /// What replaces transcript text under ``redact``.
    public static let redacted = "[REDACTED]"

    func text(_ text: String) -> String { redact ? Self.redacted : text }
}
