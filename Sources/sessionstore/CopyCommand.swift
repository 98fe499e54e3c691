import ArgumentParser
import EventLog
import Foundation
import Output

struct CopyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy the whole store to another place or backend: LMDB to PostgreSQL and back.",
        discussion: """
            Copies every record, key, dictionary, index, view and Merkle node byte for byte, so the copy \
            opens with the same key file or passphrase and verifies to the same tree root. Then it opens the \
            copy and verifies it, and prints the root of both (give --skip-verify to leave that to you).

            --to is a directory that does not exist or is empty, or a postgresql:// URL of a database \
            without a store (the tables are created). The records go over in transactions of --batch; \
            everything else in one last transaction. Until that commits, the destination is an unfinished \
            copy that does not open; run the same command again and it goes on after the last record it \
            holds. A destination that is a complete copy already is left as it is. The source stays open \
            for appends meanwhile: the copy holds everything committed before its last step.

            Example: sessionstore copy --store sessions.store --to postgresql://app@db1,db2/sessions?target_session_attrs=read-write
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @Option(name: .customLong("to"), help: ArgumentHelp("Where to copy the store: a directory or a postgresql:// URL.", valueName: "path-or-url"))
    var destination: String

    @Option(name: .customLong("batch"), help: ArgumentHelp("Records per transaction while copying.", valueName: "count"))
    var batch = 10_000

    @Flag(name: .customLong("skip-verify"), help: "Do not verify the copy afterwards.")
    var skipVerify = false

    @OptionGroup var progressOption: ProgressOption

    func validate() throws {
        guard batch > 0 else { throw ValidationError("--batch must be at least 1.") }
    }

    func run() async throws {
        try await reportingFailures {
            let source = try storeOptions.openLog()
            let line = progressOption.start("copying", unit: "records")
            let report = try source.copy(to: destination, batchRecords: batch) { line.update($0.copiedRecords, of: $0.totalRecords) }
            line.finish()
            let what = report.copiedRecords == 0 ? "\(report.destination) is a complete copy already (\(report.records) records); nothing copied"
                : "copied \(report.copiedRecords) records to \(report.destination)" + (report.resumed ? ", finishing an earlier copy (\(report.records) records in all)" : "")
            Console.line(what)
            guard !skipVerify else { return }
            let sourceHead = try source.treeHead(size: report.records)
            let copy = try EventLog.open(at: destination, key: try storeOptions.keySource(), options: StoreOptions.eventLogOptions)
            let checking = progressOption.start("verifying the copy", unit: "records")
            let verified = try copy.verify { checking.update($0, of: $1) }
            checking.finish()
            guard verified.isIntact else {
                throw CommandFailure(.integrity, "the copy at \(report.destination) is NOT intact: \(verified.problemCount) problems; "
                                     + "run `sessionstore verify --store \(report.destination)` on it for the list")
            }
            let root = Data(verified.treeHead.rootHash).base64EncodedString()
            Console.line("copy verified: \(verified.checkedRecords) records intact, tree root \(root)")
            let sourceRoot = Data(sourceHead.rootHash).base64EncodedString()
            guard verified.treeHead.size == sourceHead.size, sourceRoot == root else {
                throw CommandFailure(.integrity, "the copy's tree root \(root) differs from the source's \(sourceRoot) at \(sourceHead.size) records")
            }
            Console.line("source tree root at \(sourceHead.size) records: \(sourceRoot) (the same)")
        }
    }
}
