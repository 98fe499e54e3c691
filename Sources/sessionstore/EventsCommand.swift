import ArgumentParser
import Foundation
import SessionModel

struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Print a session's events, decrypted, as NDJSON in the ingest shape.",
        discussion: """
            One JSON object per event, in the session's order, with the ingest fields (docs/INGEST.md) plus \
            stream_number, position and recorded_at. Subjects appear as subject_hash: raw ids are never \
            stored. Audio chunks show their frame count instead of their samples unless --with-audio is given.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The session id.", valueName: "session"))
    var session: String

    @Flag(help: "Include the PCM of audio chunks (base64).")
    var withAudio = false

    func run() async throws {
        try await reportingFailures {
            for event in try readSession(session, from: try storeOptions.openLog()) {
                print(try jsonLine(try event.ingestShapedJSON(withAudio: withAudio)))
            }
        }
    }
}
