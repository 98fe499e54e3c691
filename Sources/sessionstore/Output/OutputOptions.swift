import ArgumentParser
import Output

extension OutputFormat: ExpressibleByArgument {
    /// None: each command's help names the formats it offers (``FormatOffer``), and the parser's own
    /// "(values: …)" list would name all five on every command.
    public static var allValueStrings: [String] { [] }
}

/// The formats a command offers and the one it uses when none is given.
protocol FormatOffer {
    static var formats: [OutputFormat] { get }
    static var defaultFormat: OutputFormat { get }
}

extension FormatOffer {
    static var helpText: String {
        let names = formats.map { $0 == defaultFormat ? "\($0.rawValue) (default)" : $0.rawValue }
        return "Output format: " + names.dropLast().joined(separator: ", ") + " or " + names.last! + "."
    }
}

/// Lists: sessions, consent trails.
enum ListFormats: FormatOffer {
    static let formats: [OutputFormat] = [.table, .json, .ndjson, .csv]
    static let defaultFormat = OutputFormat.table
}

/// What replay prints: its own lines for people, or trace rows.
enum ReplayFormats: FormatOffer {
    static let formats: [OutputFormat] = [.text, .ndjson, .json, .csv]
    static let defaultFormat = OutputFormat.text
}

/// Event lines.
enum LineFormats: FormatOffer {
    static let formats: [OutputFormat] = [.ndjson, .json, .csv]
    static let defaultFormat = OutputFormat.ndjson
}

/// Reports read as text by people, with rows for programs: transcripts, verify.
enum TextFormats: FormatOffer {
    static let formats: [OutputFormat] = [.text, .json, .ndjson, .csv]
    static let defaultFormat = OutputFormat.text
}

/// A secret made once (`tokens create`): alone on a line for a script, or one JSON object.
enum SecretFormats: FormatOffer {
    static let formats: [OutputFormat] = [.text, .json]
    static let defaultFormat = OutputFormat.text
}

/// One record of facts: stats.
enum ObjectFormats: FormatOffer {
    static let formats: [OutputFormat] = [.table, .json]
    static let defaultFormat = OutputFormat.table
}

/// One record of what a compliance command did: erase, compact, retention.
enum RecordFormats: FormatOffer {
    static let formats: [OutputFormat] = [.table, .json, .csv]
    static let defaultFormat = OutputFormat.table
}

/// `--format`, for a command that writes data in the formats `Offer` names.
struct FormatOption<Offer: FormatOffer>: ParsableArguments {
    @Option(name: .customLong("format"), help: ArgumentHelp(Offer.helpText, valueName: "format"))
    var chosen: OutputFormat?

    var format: OutputFormat { chosen ?? Offer.defaultFormat }

    func validate() throws {
        if let chosen, !Offer.formats.contains(chosen) {
            throw ValidationError("--format \(chosen.rawValue) is not offered here. " + Offer.helpText)
        }
    }
}

/// `--format` and `--out`: shared by every command that prints data (docs/OUTPUT.md).
struct OutputOptions<Offer: FormatOffer>: ParsableArguments {
    @OptionGroup var formatOption: FormatOption<Offer>

    @Option(name: .customLong("out"), help: ArgumentHelp(
        "Write the output to this file (replaced only when the command succeeds) instead of standard output.",
        valueName: "path"))
    var path: String?

    var format: OutputFormat { formatOption.format }

    /// Where the output goes: the file named by --out, or standard output.
    func sink() throws -> OutputSink { try OutputSink.file(path) }
}

extension OutputSink {
    /// Writes one record: a JSON object, or a one-row table, CSV or NDJSON.
    func writeRecord<Row: OutputRow>(_ row: Row, format: OutputFormat) throws {
        if format == .json {
            try writeObject(row)
        } else {
            var writer = RowWriter<Row>(format: format, sink: self)
            try writer.write(row)
            try writer.finish()
        }
    }
}
