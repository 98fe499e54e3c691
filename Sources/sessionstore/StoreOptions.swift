import ArgumentParser
import EventLog
import EventLogPostgres
import Foundation
import Output

/// Where the store and its key are: shared by every command that opens the store.
struct StoreOptions: ParsableArguments {
    @Option(name: .customLong("store"), help: ArgumentHelp(
        "The store: a directory (LMDB), or a PostgreSQL database as postgresql://user@host:port/db (docs/SCALING.md). Default: $SESSIONSTORE_STORE, else ./sessions.store.",
        valueName: "path-or-url"))
    var storePath: String?

    @Option(name: .customLong("key-file"), help: ArgumentHelp(
        "The 32-byte master key file (mode 0600). Default: $SESSIONSTORE_KEY_FILE, else ./sessions.key.",
        valueName: "path"))
    var keyFile: String?

    @Option(name: .customLong("passphrase-env"), help: ArgumentHelp(
        "Derive the master key from the passphrase in this environment variable instead of a key file.",
        valueName: "variable"))
    var passphraseVariable: String?

    func validate() throws {
        if keyFile != nil, passphraseVariable != nil {
            throw ValidationError("Give either --key-file or --passphrase-env, not both.")
        }
    }

    /// How the CLI opens a store: LMDB, memory and PostgreSQL locations.
    static let eventLogOptions = EventLogOptions().withPostgreSQL()

    var store: String {
        storePath ?? Console.variable("SESSIONSTORE_STORE") ?? "sessions.store"
    }

    var keyFilePath: String {
        keyFile ?? Console.variable("SESSIONSTORE_KEY_FILE") ?? "sessions.key"
    }

    /// The key source these options name; a missing or empty passphrase variable is a usage error.
    func keySource() throws -> KeySource {
        guard let variable = passphraseVariable else { return .keyFile(keyFilePath) }
        guard let passphrase = Console.variable(variable), !passphrase.isEmpty else {
            throw CommandFailure(.usage, "the environment variable \(variable) named by --passphrase-env is not set or empty")
        }
        return .passphrase(passphrase)
    }

    func openLog() throws -> EventLog {
        try reference().open()
    }

    /// The store and its key, for a library call that opens and closes the store itself.
    func reference() throws -> StoreReference {
        StoreReference(location: store, key: try keySource(), options: Self.eventLogOptions)
    }
}

/// `--wait`: how long a command that needs the store alone (compaction, key rotation) waits for other
/// processes to close it before it stops with exit 75.
struct WaitOption: ParsableArguments {
    @Option(name: .customLong("wait"), help: ArgumentHelp(
        "Seconds to wait for other processes to close the store when it is needed alone, and on PostgreSQL for the server's older transactions to end (default 10).",
        valueName: "seconds"))
    var seconds: Double = 10

    var duration: Duration { .milliseconds(Int(seconds * 1000)) }
}
