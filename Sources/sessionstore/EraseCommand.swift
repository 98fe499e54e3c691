import ArgumentParser
import Compliance
import EventLog
import Foundation
import Output
import SessionModel

struct EraseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "erase",
        abstract: "Erase a person's data: destroy the keys of all their sessions, then compact the store.",
        discussion: """
            Takes the raw user id (hashed with the store's key; the raw id is never stored or printed). \
            Appends a subject.erased event (the subject's hash and the sessions, no personal data) to the \
            store's audit stream, destroys the data key of every session of that person, and compacts \
            the store file so that no old copy of a key or of a transcript row is left in it.

            Afterwards the sessions' transcripts and audio cannot be read by anyone, with any key: reads \
            fail with a message saying the data was erased (exit 65). The session list shows them as \
            erased, exports list them without text, the consent trail (`audit consent`) still proves \
            what was consented and when, and `verify` still passes. Erasing again is safe: it finishes \
            an erasure that was interrupted and changes nothing otherwise.

            The compaction needs the store to itself: it waits up to --wait seconds for other processes \
            to close it and otherwise stops with exit 75 (the keys are destroyed already; run \
            `sessionstore compact` later). What is and is not guaranteed: docs/COMPLIANCE.md.

            A legal hold on the person or on a session of theirs (`hold place`) refuses the erasure with \
            exit 6, naming the hold; nothing is erased. Refuses to run without --yes (exit 64): there is no undo.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .customLong("subject"), help: ArgumentHelp("The person's raw user id, as the client sent it in subject.", valueName: "user-id"))
    var subject: String

    @Flag(name: .customLong("yes"), help: "Confirm the erasure; nothing is erased without it.")
    var confirmed = false

    @Option(name: .customLong("reference"), help: ArgumentHelp(
        "The erasure request's reference (a ticket number) to keep in the event; no personal data.", valueName: "text"))
    var reference: String?

    @OptionGroup var wait: WaitOption
    @OptionGroup var progressOption: ProgressOption

    @OptionGroup var output: OutputOptions<RecordFormats>

    func run() async throws {
        try await reportingFailures {
            guard confirmed else {
                throw CommandFailure(.usage, "erasure cannot be undone: add --yes to erase every session of this person")
            }
            let clock = ContinuousClock()
            let start = clock.now
            let progress = progressOption.start("erasing")
            defer { progress.finish() }
            let done = try await SubjectErasure.erase(userID: subject, reference: reference, at: EventLogOptions.systemClock(),
                                                      in: try storeOptions.reference(), waitingUpTo: wait.duration, stage: { progress.stage($0) })
            let erasing = clock.now - start - done.compaction.duration
            let sink = try output.sink()
            try sink.writeRecord(ErasureRow(report: done.erasure, erasing: erasing, compaction: done.compaction), format: output.format)
            try sink.close()
        }
    }
}

struct CompactCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Rewrite the store file without its free pages, so nothing deleted survives in it.",
        discussion: """
            LMDB keeps older copies of changed pages in data.mdb until it reuses them. `erase` and \
            `retention apply` compact by themselves; run this when one of them could not (another \
            process had the store open). Needs no key (--key-file and --passphrase-env are accepted, as by \
            every command, and not read). Waits up to --wait seconds for other processes to close the \
            store, then stops with exit 75.
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var wait: WaitOption
    @OptionGroup var progressOption: ProgressOption

    @OptionGroup var output: OutputOptions<RecordFormats>

    func run() async throws {
        try await reportingFailures {
            let report = try progressOption.running("compacting the store file") {
                try EventLog.compact(at: storeOptions.store, waitingUpTo: wait.duration, options: StoreOptions.eventLogOptions)
            }
            let sink = try output.sink()
            try sink.writeRecord(CompactionRow(report: report), format: output.format)
            try sink.close()
        }
    }
}
