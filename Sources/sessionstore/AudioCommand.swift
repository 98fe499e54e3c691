import ArgumentParser
import Audio
import Exports
import Foundation
import Ingest
import Output
import SessionLog
import SessionModel

struct AudioCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audio",
        abstract: "Write a session's recording out as WAV or FLAC, bit-identical to what was recorded.",
        discussion: """
            The recording's chunks are concatenated in index order. A missing or repeated chunk index is \
            reported (exit 65) and nothing is written: gaps are never filled. With one recording in the \
            session, --recording may be left out.

            --out takes a file name ending in .wav or .flac, which is replaced only when the recording is \
            complete; or, with --format, standard output (-), a pipe or a device, written in place.
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var access: AccessOptions

    @Argument(help: ArgumentHelp("The session id.", valueName: "session"))
    var session: String

    @Option(help: ArgumentHelp("The recording id (needed when the session has several).", valueName: "id"))
    var recording: String?

    @Option(help: ArgumentHelp("Where to write: a file name ending in .wav or .flac, or - (standard output), a pipe or a device with --format.",
                               valueName: "file"))
    var out: String

    @Option(help: ArgumentHelp("The container, wav or flac. Default: from the --out file name's extension.", valueName: "format"))
    var format: AudioFile.Container?

    func run() async throws {
        try await reportingFailures {
            guard let container = format ?? (try? AudioFile.Container(path: out)) else {
                throw CommandFailure(.usage, "--out \(out) does not end in .wav or .flac; name such a file or choose --format wav or flac")
            }
            let sink = try OutputSink.file(out)  // an unwritable place fails before the store is read
            let log = try storeOptions.openLog()
            let id = try SessionLookup.existing(session, in: log)
            let file = try await access.open(log).read(.audio, of: [id]) {
                try RecordingExport.file(of: id, recording: recording, as: container, from: log)
            }
            try sink.write(bytes: file.bytes)
            try sink.close()
            let seconds = String(format: "%.1f", Double(file.frames) / Double(file.format.sampleRate))
            // On standard error, as `report` does: the recording itself may be going to standard output.
            Console.err("wrote \(file.frames) frames (\(seconds) s, \(file.format)) of recording \(file.recording) to \(out)\n")
        }
    }
}

extension AudioFile.Container: ExpressibleByArgument {}
