import ArgumentParser
import EventLog
import Failures
import Foundation
import Output
import Ingest
import SessionModel

struct IngestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Append the session events of an NDJSON file (one JSON event per line).",
        discussion: """
            The file is appended in one transaction, all or nothing: a file with any bad line appends \
            nothing, lists its problems (line, field, reason; the first 1,000) on stderr and exits 65. \
            It is read a window of lines at a time, so memory does not grow with the file; other appends \
            wait while it runs. Events already stored (same \
            id, or the same line sent again) are skipped, so a file can be sent again safely. A session's \
            first event must be session.started unless the store holds the session already. Raw subject \
            ids are replaced by keyed hashes before anything is stored. The line format is docs/INGEST.md.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The NDJSON file, or - for standard input.", valueName: "file"))
    var file: String

    @OptionGroup var progressOption: ProgressOption

    func run() async throws {
        try await reportingFailures {
            let name = file == "-" ? "stdin" : file
            let source: IngestSource = file == "-" ? .stream(Console.input, name: name) : .file(URL(fileURLWithPath: file))
            if case .file(let url) = source { try checkReadable(url) }
            let log = try storeOptions.openLog()
            let progress = progressOption.start("ingesting \(name)", unit: "bytes")
            var ingest = SessionIngest(log: log)
            ingest.onProgress = { step in progress.update(step.done, of: step.total) }
            defer { progress.finish() }
            let report = try await appending(from: name) { try await ingest.ingest(source) }
            try log.close()
            progress.finish()  // erased before the result is printed, not after
            if report.lines == 0 {
                Console.err("\(name) holds no events (it is empty or only blank lines); nothing was appended\n")
            }
            Console.line(report.summary)
        }
    }

    /// Fails as the ingest would, before the store is opened: a missing file, a directory, no permission.
    private func checkReadable(_ url: URL) throws {
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            _ = try handle.read(upToCount: 1)
        } catch {
            throw CommandFailure(.invalidData, "cannot read \(file): \(fileErrorReason(error))")
        }
    }
}

extension IngestReport {
    /// "ingested 12 events into 1 session (3 already stored, skipped)"
    var summary: String {
        var summary = "ingested \(appended) events into \(sessions) " + (sessions == 1 ? "session" : "sessions")
        if duplicates > 0 { summary += " (\(duplicates) already stored, skipped)" }
        return summary
    }
}

/// Runs an ingest; a rejected batch lists every problem on stderr, each prefixed with `source`,
/// and fails with exit 65 (nothing was appended).
func appending(from source: String, _ ingest: () async throws -> IngestReport) async throws -> IngestReport {
    do {
        return try await ingest()
    } catch let failure as IngestFailure {
        for problem in failure.problems {
            Console.err("\(source): \(problem)\n")
        }
        if failure.unlisted > 0 {
            Console.err("\(source): \(failure.unlisted) more problems not listed\n")
        }
        throw CommandFailure(.invalidData, "\(source) has \(failure.count) "
                             + (failure.count == 1 ? "problem" : "problems") + "; nothing was appended")
    }
}
