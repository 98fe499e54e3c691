import ArgumentParser
import EventLog
import Foundation
import Output

struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check every record of the store: leaf hash, authentication, decompression and indexes.",
        discussion: """
            Reads every record, checks its leaf hash, decrypts and decompresses it, and checks that the \
            stream rows, the stream index and the index of event ids agree with the records. Prints each problem with the global \
            position it concerns. Rebuilds the Merkle tree from the records' leaf hashes and checks every \
            node the store keeps. Opens every row of the persisted views (the session list, transcripts, \
            consent trails) with its key, so that an altered or moved row is found too, and checks that no \
            view claims to have folded past the log's end. Exits 0 when everything is intact and 2 when \
            anything is not. Records and view rows whose data key was destroyed (erased) are counted; the \
            records' leaf hashes are still checked.

            --anchor FILE also checks the log against a checkpoint written earlier by `anchor`: its \
            signature, that the records it covers still hash to its root (so none was changed, removed, \
            reordered or truncated, by anyone, keys or not), and the RFC 9162 consistency proof from it \
            to the log now. It keeps passing after erasure and retention: leaves cover ciphertext.

            --without-key checks everything that needs no key, for an auditor who has none: headers, leaf \
            hashes against the stored bytes, positions, stream numbers, the stream index, the index of event ids, the Merkle tree, \
            and --anchor (whose signature is then checked with --verifier-key, the key `anchor \
            --public-key` prints). It says what it could not check: that the ciphertext authenticates and \
            decompresses.

            --format json prints one document {intact, checked_records, erased_records, checked_view_rows, \
            erased_view_rows, tree_size, root_hash, anchor_consistent, content_authenticated, problem_count, problems}; ndjson and csv print one line per problem (none when intact). Field names: docs/OUTPUT.md.
            """
    )

    @OptionGroup var progressOption: ProgressOption
    @OptionGroup var storeOptions: StoreOptions
    @Option(name: .customLong("anchor"), help: ArgumentHelp("A checkpoint written by `anchor`: check the log extends it.", valueName: "file"))
    var anchor: String?

    @Flag(name: .customLong("without-key"), help: "Check what needs no key; no key file or passphrase is read.")
    var withoutKey = false

    @Option(name: .customLong("verifier-key"), help: ArgumentHelp(
        "With --without-key and --anchor: the key that verifies the checkpoint (from `anchor --public-key`).", valueName: "key"))
    var verifierKey: String?

    @OptionGroup var witnesses: WitnessCheckOptions

    @OptionGroup var output: OutputOptions<TextFormats>

    func validate() throws {
        if !witnesses.witnessKeys.isEmpty, anchor == nil { throw ValidationError("--witness-key checks the cosignatures on an --anchor checkpoint.") }
        if withoutKey, anchor != nil, verifierKey == nil {
            throw ValidationError("--without-key --anchor needs --verifier-key: without the master key the checkpoint's signature is checked with the public key.")
        }
        if verifierKey != nil, !withoutKey { throw ValidationError("--verifier-key goes with --without-key.") }
    }

    func run() async throws {
        try await reportingFailures {
            let line = progressOption.start("verifying", unit: "records")
            let progress: (UInt64, UInt64) -> Void = { line.update($0, of: $1) }
            let report: VerificationReport
            if withoutKey {  // checks the file's structure itself before opening it
                let checkpoint = try anchor.map { try readCheckpoint($0, verifierKey: verifierKey!) }
                if let checkpoint { try witnesses.check(checkpoint) }
                report = try EventLog.verifyWithoutKey(at: storeOptions.store, anchor: checkpoint, options: StoreOptions.eventLogOptions,
                                                   progress: progress)
            } else {
                // The file's structure first, once, before opening the store reads a file that may be damaged.
                let structure = try EventLog.checkStructure(at: storeOptions.store, options: StoreOptions.eventLogOptions)
                if structure.isIntact {
                    let log = try storeOptions.openLog()
                    let checkpoint = try anchor.map { try readCheckpoint($0, verifierKey: log.checkpointVerifierKey) }
                    if let checkpoint { try witnesses.check(checkpoint) }
                    report = try log.verify(anchor: checkpoint, checkingStructure: false, progress: progress)
                } else {
                    report = structure
                }
            }
            line.finish()
            let sink = try output.sink()
            switch output.format {
            case .text:
                for problem in report.problems {
                    sink.write((problem.position.map { "position \($0): \(problem.message)" } ?? problem.message) + "\n")
                }
                if report.isIntact {
                    if report.contentAuthenticated {
                        sink.write("intact: \(report.checkedRecords) records checked, \(report.erasedRecords) of them erased; "
                                   + "\(report.checkedViewRows) view rows authenticated, \(report.erasedViewRows) erased\n")
                    } else {
                        sink.write("intact without the key: \(report.checkedRecords) records' headers, leaf hashes, order and index checked; "
                                   + "not checked: that their ciphertext authenticates and decompresses (that needs the key)\n")
                    }
                    sink.write("tree: \(report.treeHead.size) leaves, root \(Data(report.treeHead.rootHash).base64EncodedString())\n")
                    if let anchor, report.anchorConsistent == true {
                        sink.write("consistent with the checkpoint in \(anchor)\n")
                    }
                }
            case .json:
                try sink.writeObject(VerifyDocument(report: report))
            default:
                var writer = RowWriter<ProblemRow>(format: output.format, sink: sink)
                for problem in report.problems { try writer.write(ProblemRow(problem: problem)) }
                try writer.finish()
            }
            try sink.close()
            if !report.isIntact {
                let hidden = report.problemCount - report.problems.count
                let problems = report.problemCount == 1 ? "1 problem" : "\(report.problemCount) problems"
                throw CommandFailure(.integrity, "the store is NOT intact: \(problems) in \(report.checkedRecords) records"
                                     + (hidden > 0 ? " (\(hidden) not listed)" : ""))
            }
        }
    }
}
