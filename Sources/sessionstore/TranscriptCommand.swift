import ArgumentParser
import Foundation
import Projections
import SessionModel

struct TranscriptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcript",
        abstract: "Print a session's transcript: one committed segment per line.",
        discussion: """
            Committed segments in the order they were committed, each with its latest correction if it has \
            one, from the persisted transcript (brought up to date first). With --partials, the current guesses of segments not committed yet follow, marked "…". \
            --format json prints segments with their times, confidence, speaker, words and corrections.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The session id.", valueName: "session"))
    var session: String

    @Option(help: "Output format: text or json.")
    var format: Format = .text

    @Flag(help: "Also print the current partial guesses of segments not committed yet.")
    var partials = false

    func run() async throws {
        try await reportingFailures {
            let log = try storeOptions.openLog()
            let id = try existingSession(session, in: log)
            // The persisted transcript, brought up to date: no need to read (and decrypt) the session's audio.
            let runner = ProjectionRunner(log: log)
            try runner.catchUp()
            let view = try runner.transcript(of: id) ?? TranscriptView(session: id)
            switch format {
            case .text:
                for segment in view.segments { print(segment.currentText) }
                if partials { for partial in view.partials { print("… " + partial.text) } }
            case .json:
                var object: [String: Any] = [
                    "session": view.session.uuidString.lowercased(),
                    "segments": view.segments.map { segment -> [String: Any] in
                        var json: [String: Any] = ["segment": segment.id, "text": segment.currentText,
                                                   "start_ms": segment.startMilliseconds, "end_ms": segment.endMilliseconds,
                                                   "committed_at": RFC3339.string(segment.committedAt)]
                        if let correction = segment.correction {
                            json["committed_text"] = segment.text
                            json["corrected"] = correction
                        }
                        if let confidence = segment.confidence { json["confidence"] = confidence }
                        if let speaker = segment.speaker { json["speaker"] = speaker }
                        if !segment.words.isEmpty {
                            json["words"] = segment.words.map { ["word": $0.word, "start_ms": $0.startMilliseconds, "end_ms": $0.endMilliseconds] }
                        }
                        return json
                    },
                ]
                if partials {
                    object["partials"] = view.partials.map {
                        ["segment": $0.segment, "revision": $0.revision, "text": $0.text] as [String: Any]
                    }
                }
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
                print(String(decoding: data, as: UTF8.self))
            }
        }
    }
}
