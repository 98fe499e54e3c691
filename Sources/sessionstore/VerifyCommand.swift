import ArgumentParser
import EventLog
import Foundation

struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check every record of the store: leaf hash, authentication, decompression and indexes.",
        discussion: """
            Reads every record, checks its leaf hash, decrypts and decompresses it, and checks that the \
            stream rows and the stream index agree with the records. Prints each problem with the global \
            position it concerns. Exits 0 when everything is intact and 2 when anything is not. Records \
            whose data key was destroyed (erased) are counted; their leaf hashes are still checked.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

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
            for problem in report.problems {
                print(problem.position.map { "position \($0): \(problem.message)" } ?? problem.message)
            }
            if report.isIntact {
                print("intact: \(report.checkedRecords) records checked, \(report.erasedRecords) of them erased")
            } else {
                let hidden = report.problemCount - report.problems.count
                let problems = report.problemCount == 1 ? "1 problem" : "\(report.problemCount) problems"
                throw CommandFailure(.integrity, "the store is NOT intact: \(problems) in \(report.checkedRecords) records"
                                     + (hidden > 0 ? " (\(hidden) not listed)" : ""))
            }
        }
    }
}
