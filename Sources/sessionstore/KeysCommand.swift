import ArgumentParser
import EventLog
import Foundation
import Output
import SessionModel

struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Manage the store's master key, and share its subject key.",
        subcommands: [KeysRotateCommand.self, KeysExportSubjectKeyCommand.self]
    )
}

struct KeysExportSubjectKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-subject-key",
        abstract: "Write the key this store hashes subjects with, for a store that will push to it.",
        discussion: """
            Writes the store's subject-hashing key (32 bytes) to a new file with mode 0600, and prints its id. \
            init --subject-key FILE then creates a store that hashes a person's id as this one does, \
            so that push from it keeps its sessions' subjects, and erasing the person here reaches \
            them (docs/CLIENT.md, "Pushing a store"). Whoever holds the key can test guesses of user ids against \
            subject hashes: give it only to stores kept as carefully as this one. Refuses to overwrite anything.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .customLong("out"), help: ArgumentHelp("The new key file.", valueName: "path"))
    var out: String

    func run() async throws {
        try await reportingFailures {
            let log = try storeOptions.openLog()
            try log.exportSubjectKey().write(to: out)
            Console.line("Wrote the subject key \(SubjectKeyID.of(log.identifierHash)) to \(out) (mode 0600).")
        }
    }
}

struct KeysRotateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate",
        abstract: "Replace the master key: re-wrap every data key, dictionary and view row under a new one.",
        discussion: """
            Opens the store with the current key (--key-file or --passphrase-env, as for every command) \
            and, in one transaction, seals every data key, compression dictionary and view row again \
            under the new key (--new-key-file, or --new-passphrase-env). A --new-key-file that does not \
            exist is created (32 random bytes, mode 0600) and kept; one that exists must be 32 bytes with \
            mode 0600 (made by `init`, or by an earlier rotation that stopped), and is never overwritten. No event record is rewritten. Subject hashes and the \
            checkpoint verifier key stay the same. Then compacts the store so no copy of the old \
            wrappings is left in the file.

            Afterwards the old key is refused (exit 77) and the new one reads everything. Killed at any \
            moment, the store opens with exactly one of the two keys. Needs the store to itself: waits up \
            to --wait seconds for other processes to close it, then stops with exit 75.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .customLong("new-key-file"), help: ArgumentHelp("The new 32-byte master key file (mode 0600).", valueName: "path"))
    var newKeyFile: String?

    @Option(name: .customLong("new-passphrase-env"), help: ArgumentHelp(
        "Derive the new master key from the passphrase in this environment variable.", valueName: "variable"))
    var newPassphraseVariable: String?

    @OptionGroup var wait: WaitOption
    @OptionGroup var progressOption: ProgressOption

    @OptionGroup var output: OutputOptions<RecordFormats>

    func validate() throws {
        guard (newKeyFile == nil) != (newPassphraseVariable == nil) else {
            throw ValidationError("Give either --new-key-file or --new-passphrase-env.")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let new: KeySource
            if let newKeyFile {
                if !FileManager.default.fileExists(atPath: newKeyFile) {
                    try MasterKeyFile.create(at: newKeyFile)
                    Console.err("created the new key file \(newKeyFile) (mode 0600); keep it away from the store\n")
                }
                new = .keyFile(newKeyFile)
            } else {
                let variable = newPassphraseVariable!
                guard let passphrase = Console.variable(variable), !passphrase.isEmpty else {
                    throw CommandFailure(.usage, "the environment variable \(variable) named by --new-passphrase-env is not set or empty")
                }
                new = .passphrase(passphrase)
            }
            let report = try progressOption.running("re-sealing the keys and compacting the store file") {
                try EventLog.rotateMasterKey(at: storeOptions.store, from: try storeOptions.keySource(), to: new, waitingUpTo: wait.duration,
                                             options: StoreOptions.eventLogOptions)
            }
            let sink = try output.sink()
            try sink.writeRecord(RotationRow(report: report), format: output.format)
            try sink.close()
        }
    }
}
