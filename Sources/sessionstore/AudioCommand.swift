import ArgumentParser
import Audio
import Exports
import Foundation
import Ingest
import SessionModel

struct AudioCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audio",
        abstract: "Write a session's recording out as WAV or FLAC, bit-identical to what was recorded.",
        discussion: """
            The recording's chunks are concatenated in index order. A missing or repeated chunk index is \
            reported (exit 65) and nothing is written: gaps are never filled. With one recording in the \
            session, --recording may be left out.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The session id.", valueName: "session"))
    var session: String

    @Option(help: ArgumentHelp("The recording id (needed when the session has several).", valueName: "id"))
    var recording: String?

    @Option(help: ArgumentHelp("Where to write: a file name ending in .wav or .flac.", valueName: "file"))
    var out: String

    func run() async throws {
        try await reportingFailures {
            _ = try AudioFile.Container(path: out)  // a bad file name fails before the store is read
            let events = try readSession(session, from: try storeOptions.openLog())
            let chosen = try RecordingExport.recording(recording, in: events, session: session)
            let (samples, format) = try RecordingExport.samples(of: chosen, in: events, session: session)
            try AudioFile.write(samples, format: format, to: out)
            let frames = samples.count / format.channels
            print("wrote \(frames) frames (\(String(format: "%.1f", Double(frames) / Double(format.sampleRate))) s, \(format)) "
                  + "of recording \(chosen.recording) to \(out)")
        }
    }
}
