import ArgumentParser
import Audio
import EventLog
import Foundation
import HexCoding
import Ingest
import Output
import Replay
import SessionLog
import SessionModel

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Record the bundled fixture sessions into the store and show what the store holds.",
        discussion: """
            On the store (created with its key file when absent), records each fixture of \
            Fixtures/audio (audio + timed script) as a session, idempotently: a second run adds nothing. \
            Then prints the session list, one transcript, the demo clinician's consent trail and a \
            verified replay digest.
            """
    )

    static let subject = "demo-clinician"
    static let transcriptFixture = "two-speakers"

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: ArgumentHelp("The fixture folder. Default: Fixtures/audio here or above the binary.", valueName: "path"))
    var fixtures: String?

    func run() async throws {
        try await reportingFailures {
            let folder = try fixtureFolder()
            let names = try FileManager.default.contentsOfDirectory(atPath: folder)
                .filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }
                .filter { FileManager.default.fileExists(atPath: "\(folder)/\($0).flac") }.sorted()
            guard !names.isEmpty else { throw CommandFailure(.invalidData, "\(folder) holds no fixture (NAME.flac with NAME.json)") }
            let log: EventLog
            do {
                log = try storeOptions.openLog()
            } catch let error as EventLogError where error.code == .storeMissing {
                try await InitCommand.parse(storeArguments).run()
                log = try storeOptions.openLog()
            }
            var sessions: [String: UUID] = [:]
            var appended = 0
            for name in names {
                let recorder: SessionRecorder
                do {
                    recorder = SessionRecorder(audio: try AudioFile.read("\(folder)/\(name).flac"),
                                               script: try FixtureScript.load("\(folder)/\(name).json"),
                                               options: .init(subject: Self.subject)) { log.subject($0) }
                } catch {
                    throw CommandFailure(.invalidData, "fixture \(name): \(error)")
                }
                let report = try await appending(from: name) { try await SessionIngest(log: log).ingest(events: try recorder.events()) }
                appended += report.appended
                sessions[name] = recorder.session
            }
            try log.close()
            Console.line("Recorded \(names.count) fixture sessions from \(folder): \(appended) events appended"
                  + (appended == 0 ? " (all were stored already)" : "") + ".\n")

            try await SessionsCommand.parse(storeArguments).run()
            if let session = sessions[Self.transcriptFixture] ?? sessions.values.first {
                Console.line("\nTranscript of \(Self.transcriptFixture) (\(Hex.uuid(session))):")
                try await TranscriptCommand.parse(storeArguments + [Hex.uuid(session)]).run()
                Console.line("\nConsent trail of \(Self.subject):")
                try await ConsentCommand.parse(storeArguments + [Self.subject]).run()
                Console.line("\nReplay of \(Self.transcriptFixture), verified against the stored projections; trace digest:")
                try await ReplayCommand.parse(storeArguments + [Hex.uuid(session), "--verify", "--digest", "--quiet"]).run()
            }
        }
    }

    /// The options naming this store and key, for the commands the demo runs.
    private var storeArguments: [String] {
        var arguments = ["--store", storeOptions.store]
        if let variable = storeOptions.passphraseVariable { arguments += ["--passphrase-env", variable] } else {
            arguments += ["--key-file", storeOptions.keyFilePath]
        }
        return arguments
    }

    private func fixtureFolder() throws -> String {
        if let fixtures { return fixtures }
        var candidates = ["Fixtures/audio"]
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<6 {
            candidates.append(directory.appendingPathComponent("Fixtures/audio").path)
            directory = directory.deletingLastPathComponent()
        }
        guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw CommandFailure(.usage, "no Fixtures/audio here or above the binary; give --fixtures")
        }
        return found
    }
}
