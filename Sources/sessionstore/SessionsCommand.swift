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
            let rows = try runner.sessions().sorted { ($0.startedAt ?? 0, $0.session.uuidString) < ($1.startedAt ?? 0, $1.session.uuidString) }
            switch format {
            case .json: print(try jsonLine(rows.map(\.json)))
            case .csv: print(SessionsTable.csv(rows), terminator: "")
            case .table: print(SessionsTable.text(rows), terminator: "")
            }
        }
    }
}

/// Renderings of the session list.
enum SessionsTable {
    static let columns = ["session", "status", "started", "ended", "duration_ms", "segments", "words", "recordings",
                          "audio_ms", "consent", "subject_hash"]

    static func fields(_ row: SessionSummary) -> [String] {
        [row.session.uuidString.lowercased(), row.status.rawValue, row.startedAt.map(RFC3339.string) ?? "",
         row.endedAt.map(RFC3339.string) ?? "", row.durationMilliseconds.map(String.init) ?? "", String(row.segments),
         String(row.words), String(row.recordings.count), String(row.audioMilliseconds),
         row.consent.sorted { $0.key < $1.key }.map { ($0.value ? "+" : "-") + $0.key }.joined(separator: " "),
         row.subject?.description ?? ""]
    }

    static func text(_ rows: [SessionSummary]) -> String {
        let table = [columns] + rows.map(fields)
        let widths = columns.indices.map { column in table.map { $0[column].count }.max() ?? 0 }
        return table.map { row in
            row.indices.map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces) + "\n"
        }.joined()
    }

    /// RFC 4180: a header, CRLF line ends, fields quoted when they hold a comma, quote or line end.
    static func csv(_ rows: [SessionSummary]) -> String {
        func quoted(_ field: String) -> String {
            field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
                ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
        }
        return ([columns] + rows.map(fields)).map { $0.map(quoted).joined(separator: ",") + "\r\n" }.joined()
    }
}

extension SessionSummary {
    var json: [String: Any] {
        var object: [String: Any] = [
            "session": session.uuidString.lowercased(), "status": status.rawValue, "segments": segments, "words": words,
            "recordings": recordings.count, "audio_ms": audioMilliseconds, "consent": consent,
        ]
        if let subject { object["subject_hash"] = subject.description }
        if let locale { object["locale"] = locale }
        if let startedAt { object["started"] = RFC3339.string(startedAt) }
        if let endedAt { object["ended"] = RFC3339.string(endedAt) }
        if let duration = durationMilliseconds { object["duration_ms"] = duration }
        return object
    }
}
