import ArgumentParser
import Audio
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
            let log = try storeOptions.openLog()
            let events = try readSession(session, from: log)
            let started = events.compactMap { event -> RecordingStarted? in
                if case .recordingStarted(let started) = event.event.payload { started } else { nil }
            }
            let chosen = try choose(from: started)
            let chunks = events.compactMap { event -> RecordingChunk? in
                if case .recordingChunk(let chunk) = event.event.payload, chunk.recording == chosen.recording { chunk } else { nil }
            }.sorted { $0.index < $1.index }
            try checkContiguous(chunks, recording: chosen.recording)
            let format = AudioFormat(sampleRate: Int(chosen.sampleRate), channels: Int(chosen.channels))
            var samples: [Int16] = []
            for chunk in chunks { samples += Chunking.samples(fromPCM: try chunk.pcm()) }
            try AudioFile.write(samples, format: format, to: out)
            let frames = samples.count / format.channels
            print("wrote \(frames) frames (\(String(format: "%.1f", Double(frames) / Double(format.sampleRate))) s, \(format)) "
                  + "of recording \(chosen.recording) in \(chunks.count) chunks to \(out)")
        }
    }

    private func choose(from started: [RecordingStarted]) throws -> RecordingStarted {
        if let recording {
            guard let match = started.first(where: { $0.recording == recording }) else {
                throw CommandFailure(.invalidData, "session \(session) has no recording \(recording)"
                                     + (started.isEmpty ? "" : "; it has " + started.map(\.recording).joined(separator: ", ")))
            }
            return match
        }
        switch started.count {
        case 0: throw CommandFailure(.invalidData, "session \(session) has no recording")
        case 1: return started[0]
        default:
            throw CommandFailure(.usage, "session \(session) has \(started.count) recordings; choose one with --recording: "
                                 + started.map(\.recording).joined(separator: ", "))
        }
    }

    /// Indices 0, 1, 2, … each once.
    private func checkContiguous(_ chunks: [RecordingChunk], recording: String) throws {
        var missing: [UInt64] = []
        var repeated: [UInt64] = []
        var expected: UInt64 = 0
        for chunk in chunks {
            if chunk.index < expected { repeated.append(chunk.index); continue }
            if chunk.index > expected { missing += Array(expected..<min(chunk.index, expected + 20)) }
            expected = chunk.index + 1
        }
        guard missing.isEmpty, repeated.isEmpty else {
            var problems: [String] = []
            if !missing.isEmpty { problems.append("chunk \(missing.count == 1 ? "index" : "indices") \(missing.map(String.init).joined(separator: ", ")) missing") }
            if !repeated.isEmpty { problems.append("chunk \(repeated.count == 1 ? "index" : "indices") \(repeated.map(String.init).joined(separator: ", ")) stored twice") }
            throw CommandFailure(.invalidData, "recording \(recording) of session \(session) has "
                                 + problems.joined(separator: " and ") + "; nothing was written")
        }
    }
}
