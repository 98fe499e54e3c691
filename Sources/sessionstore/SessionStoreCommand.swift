import ArgumentParser
import Foundation
import SessionModel

@main
struct SessionStoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessionstore",
        abstract: "An encrypted, append-only event store for speech-dictation sessions.",
        discussion: """
            The store is a directory (default ./sessions.store, or $SESSIONSTORE_STORE), or a PostgreSQL \
            database given as --store postgresql://user@host:port/db, where several machines can share it \
            (docs/SCALING.md); a hot standby's URL serves every command that only reads. Its master key lives outside it: in a key file (default ./sessions.key, or $SESSIONSTORE_KEY_FILE) or derived \
            from a passphrase read from an environment variable (--passphrase-env).

            Try `sessionstore demo` first: it creates the store and records the bundled fixture sessions. \
            Then `sessionstore ingest FILE` or `sessionstore record --audio A --script S` to add sessions, \
            `sessions`, `transcript`, `replay`, `audio`, `report` (one session as an HTML page) and `consent` to read them, `export` to take transcripts out, `stats` and `verify` \
            to check the store. For auditors and data-protection work: `audit consent` and `audit check`, \
            `retention`, `hold`, `erase`, `anchor`, `prove` and `verify --anchor`, `keys rotate` (docs/COMPLIANCE.md).

            Exit codes: 0 ok, 1 unexpected failure, 2 integrity failure, 3 compliance violations found, 4 a run \
            failed its check (compare, replay --expect), 5 the system under test of replay --drive failed, \
            6 a legal hold keeps what erase was asked to destroy, 64 usage error, 65 invalid input data (or data that was erased), 69 the store's PostgreSQL server \
            cannot be reached, 75 the store is busy (compaction needs it alone), 77 wrong key, unusable key \
            file, or credentials or file permissions refused.
            """,
        version: SessionStoreRelease.version,
        subcommands: [DemoCommand.self, InitCommand.self, IngestCommand.self, RecordCommand.self, AudioCommand.self, ReplayCommand.self, DeriveCommand.self, CompareCommand.self, RunsCommand.self, ReportCommand.self, SessionsCommand.self, TranscriptCommand.self, ExportCommand.self, EventsCommand.self,
                      ConsentCommand.self, AuditCommand.self, RetentionCommand.self, HoldCommand.self, EraseCommand.self, CompactCommand.self,
                      AnchorCommand.self, ProveCommand.self, WitnessCommand.self, KeysCommand.self, TokensCommand.self, ServeCommand.self,
                      ProjectionsCommand.self, StatsCommand.self, VerifyCommand.self, MigrateCommand.self, CopyCommand.self, PushCommand.self, PackCommand.self]
    )

    static func main() async {
        // A file size limit makes a write fail, which is reported like a full disk, instead of
        // killing the process with SIGXFSZ in the middle of a transaction.
        signal(SIGXFSZ, SIG_IGN)
        await main(nil)
    }
}
