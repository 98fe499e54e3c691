import ArgumentParser
import EventLog
import Foundation
import Output
import SessionLog
import SessionModel

struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a new store and its master key file.",
        discussion: """
            Creates the store directory (or, for a postgresql:// store, the store's tables in that database) and, unless --passphrase-env is given, a new key file of 32 random \
            bytes with mode 0600. The store gets a compression dictionary for session events, trained on \
            generated events (no one's data). Keep the key file safe and apart from the store: without it the store \
            cannot be read. Refuses to overwrite an existing store or key file.

            --subject-key makes the store hash a person's id with another store's subject key (written by \
            keys export-subject-key there), so that sessions pushed to that store keep their subjects (push).
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .customLong("subject-key"), help: ArgumentHelp(
        "Hash subjects with this subject key file (from `keys export-subject-key` on the store this one will push to).", valueName: "path"))
    var subjectKeyFile: String?

    func run() async throws {
        try await reportingFailures {
            let store = storeOptions.store
            if let contents = try? FileManager.default.contentsOfDirectory(atPath: store), !contents.isEmpty {
                throw CommandFailure(.invalidData, "\(store) exists and is not empty; refusing to overwrite it")
            }
            let key = try storeOptions.keySource()
            let subjectKey = try subjectKeyFile.map(SubjectKey.read(from:))
            var createdKeyFile: String?
            if case .keyFile(let path) = key {
                try MasterKeyFile.create(at: path)
                createdKeyFile = path
            }
            do {
                let log = try EventLog.create(at: store, key: key, subjectKey: subjectKey, options: StoreOptions.eventLogOptions)
                try SessionDictionary.install(in: log)
                try log.close()
            } catch {
                if let createdKeyFile { try? FileManager.default.removeItem(atPath: createdKeyFile) }
                throw error
            }
            Console.line("Created store \(store)")
            if let subjectKey {
                Console.line("It hashes subjects with the subject key \(SubjectKeyID.of(subjectKey.hash)).")
            }
            if let createdKeyFile {
                Console.line("Created key file \(createdKeyFile) (mode 0600). Back it up and keep it away from the store.")
            } else {
                Console.line("The master key is derived from the passphrase in $\(storeOptions.passphraseVariable ?? "").")
            }
        }
    }
}
