import ArgumentParser
import Foundation
import Projections
import SessionModel

struct SessionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "List the sessions: status, times, segments, words, audio and consent.",
        discussion: """
            Reads the persisted session list, first folding in any events appended since it was last \
            brought up to date. Times are the client's, in UTC. Consent lists each type as granted (+) or \
            revoked (-).
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, json, csv }

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Output format: table, json or csv.")
    var format: Format = .table

    func run() async throws {
        try await reportingFailures {
            let runner = ProjectionRunner(log: try storeOptions.openLog())
            try runner.catchUp()
            // By start time, then id: keys made once (formatting uuidString per comparison dominated the command).
            let rows = try runner.sessions()
                .map { (key: SortKey(started: $0.startedAt ?? 0, id: $0.session), row: $0) }
                .sorted { $0.key < $1.key }
                .map(\.row)
            switch format {
            case .json: print(SessionsTable.json(rows))
            case .csv: print(SessionsTable.csv(rows), terminator: "")
            case .table: print(SessionsTable.text(rows), terminator: "")
            }
        }
    }
}

/// Session list order: start time, then the id's bytes.
struct SortKey: Comparable {
    var started: Int64
    var id: UUID

    static func < (lhs: SortKey, rhs: SortKey) -> Bool {
        if lhs.started != rhs.started { return lhs.started < rhs.started }
        return withUnsafeBytes(of: lhs.id.uuid) { left in
            withUnsafeBytes(of: rhs.id.uuid) { right in left.lexicographicallyPrecedes(right) }
        }
    }

    static func == (lhs: SortKey, rhs: SortKey) -> Bool { lhs.started == rhs.started && lhs.id == rhs.id }
}

/// Renderings of the session list.
enum SessionsTable {
    static let columns = ["session", "status", "started", "ended", "duration_ms", "segments", "words", "recordings",
                          "audio_ms", "consent", "subject_hash"]

    static func fields(_ row: SessionSummary) -> [String] {
        [Hex.uuid(row.session), row.status.rawValue, row.startedAt.map(RFC3339.string) ?? "",
         row.endedAt.map(RFC3339.string) ?? "", row.durationMilliseconds.map(String.init) ?? "", String(row.segments),
         String(row.words), String(row.recordings.count), String(row.audioMilliseconds),
         row.consent.sorted { $0.key < $1.key }.map { ($0.value ? "+" : "-") + $0.key }.joined(separator: " "),
         row.subject?.description ?? ""]
    }

    static func text(_ rows: [SessionSummary]) -> String {
        let table = [columns] + rows.map(fields)
        let widths = columns.indices.map { column in table.map { $0[column].count }.max() ?? 0 }
        return table.map { row in
            var line = ""
            for (index, field) in row.enumerated() {
                if index > 0 { line += "  " }
                line += field
                if index < row.count - 1 { line += String(repeating: " ", count: widths[index] - field.count) }
            }
            return line + "\n"
        }.joined()
    }

    /// RFC 4180: a header, CRLF line ends, fields quoted when they hold a comma, quote or line end.
    static func csv(_ rows: [SessionSummary]) -> String {
        func quoted(_ field: String) -> String {
            field.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D })  // , " LF CR
                ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
        }
        return ([columns] + rows.map(fields)).map { $0.map(quoted).joined(separator: ",") + "\r\n" }.joined()
    }
}

extension SessionsTable {
    /// A JSON array of the rows, written directly: Foundation's serializer took over a second for
    /// ten thousand sessions here.
    static func json(_ rows: [SessionSummary]) -> String {
        var out = "["
        out.reserveCapacity(rows.count * 420)
        for (index, row) in rows.enumerated() {
            // Keys in alphabetical order, optional ones only when present.
            out += index == 0 ? "{" : ",{"
            out += "\"audio_ms\":" + String(row.audioMilliseconds)
            out += ",\"consent\":{" + row.consent.sorted { $0.key < $1.key }
                .map { quote($0.key) + ":" + ($0.value ? "true" : "false") }.joined(separator: ",") + "}"
            if let duration = row.durationMilliseconds { out += ",\"duration_ms\":" + String(duration) }
            if let ended = row.endedAt { out += ",\"ended\":\"" + RFC3339.string(ended) + "\"" }
            if let locale = row.locale { out += ",\"locale\":" + quote(locale) }
            out += ",\"recordings\":" + String(row.recordings.count)
            out += ",\"segments\":" + String(row.segments)
            out += ",\"session\":\"" + Hex.uuid(row.session) + "\""
            if let started = row.startedAt { out += ",\"started\":\"" + RFC3339.string(started) + "\"" }
            out += ",\"status\":\"" + row.status.rawValue + "\""
            if let subject = row.subject { out += ",\"subject_hash\":\"" + subject.description + "\"" }
            out += ",\"words\":" + String(row.words) + "}"
        }
        return out + "]"
    }

    /// A JSON string literal (RFC 8259 escaping).
    static func quote(_ text: String) -> String {
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) { return "\"" + text + "\"" }
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
