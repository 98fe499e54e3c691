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
            position it concerns. Exits 0 when everything is intact and 2 when anything is not. Records \
            whose data key was destroyed (erased) are counted; their leaf hashes are still checked.

            --format json prints one document {intact, checked_records, erased_records, problem_count, \
            problems}; ndjson and csv print one line per problem (none when intact). Field names: docs/OUTPUT.md.
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions<TextFormats>

    func run() async throws {
        try await reportingFailures {
            let log = try storeOptions.openLog()
            let showProgress = isatty(STDERR_FILENO) == 1
            let report = try log.verify { checked, total in
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
