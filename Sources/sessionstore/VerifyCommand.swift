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
            stream rows and the stream index agree with the records. Prints each problem with the global \
            position it concerns. Rebuilds the Merkle tree from the records' leaf hashes and checks every \
            node the store keeps. Exits 0 when everything is intact and 2 when anything is not. Records \
            whose data key was destroyed (erased) are counted; their leaf hashes are still checked.

            --anchor FILE also checks the log against a checkpoint written earlier by `anchor`: its \
            signature, that the records it covers still hash to its root (so none was changed, removed, \
            reordered or truncated, by anyone, keys or not), and the RFC 9162 consistency proof from it \
            to the log now. It keeps passing after erasure and retention: leaves cover ciphertext.

            --format json prints one document {intact, checked_records, erased_records, tree_size, \
            root_hash, anchor_consistent, problem_count, problems}; ndjson and csv print one line per problem (none when intact). Field names: docs/OUTPUT.md.
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @Option(name: .customLong("anchor"), help: ArgumentHelp("A checkpoint written by `anchor`: check the log extends it.", valueName: "file"))
    var anchor: String?

    @OptionGroup var output: OutputOptions<TextFormats>

    func run() async throws {
        try await reportingFailures {
            let log = try storeOptions.openLog()
            let showProgress = isatty(STDERR_FILENO) == 1
            let checkpoint = try anchor.map { try readCheckpoint($0, for: log) }
            let report = try log.verify(anchor: checkpoint) { checked, total in
                if showProgress {
                    FileHandle.standardError.write(Data("\rverifying: \(checked) of \(total) records".utf8))
                }
            }
            if showProgress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            let sink = try output.sink()
            switch output.format {
            case .text:
                for problem in report.problems {
                    sink.write((problem.position.map { "position \($0): \(problem.message)" } ?? problem.message) + "\n")
                }
                if report.isIntact {
                    sink.write("intact: \(report.checkedRecords) records checked, \(report.erasedRecords) of them erased\n")
                    sink.write("tree: \(report.treeHead.size) leaves, root \(Data(report.treeHead.rootHash).base64EncodedString())\n")
                    if let checkpoint {
                        sink.write("consistent with the checkpoint of \(checkpoint.size) records in \(anchor!)\n")
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
