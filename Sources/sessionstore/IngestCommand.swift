import ArgumentParser
import EventLog
import Foundation
import Ingest
import SessionModel

struct IngestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Append the session events of an NDJSON file (one JSON event per line).",
        discussion: """
            Every line is checked before anything is written; a file with any bad line appends nothing, \
            lists every problem (line, field, reason) on stderr and exits 65. Events already stored (same \
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
            let data: Data
            do {
                data = file == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw CommandFailure(.invalidData, "cannot read \(file): \(fileErrorReason(error))")
            }
            let log = try storeOptions.openLog()
            let name = file == "-" ? "stdin" : file
            let progress = progressOption.start("reading \(name)")
            var ingest = SessionIngest(log: log)
            let stage = StageTracker()
            ingest.onProgress = { step in
                if stage.enter(step.stage) { progress.stage(step.stage.rawValue, unit: step.stage == .appending ? "events" : "") }
                if step.stage != .appending { progress.update(step.done, of: step.total) }
            }
            defer { progress.finish() }
            let report = try await appending(from: name) { try await ingest.ingest(data) }
            try log.close()
            print(report.summary)
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
            FileHandle.standardError.write(Data("\(source): \(problem)\n".utf8))
        }
        throw CommandFailure(.invalidData, "\(source) has \(failure.problems.count) "
                             + (failure.problems.count == 1 ? "problem" : "problems") + "; nothing was appended")
    }
}

/// The stage an ingest is in, told from several threads: whether a report starts a new one.
private final class StageTracker: @unchecked Sendable {
    // @unchecked: `current` is guarded by `lock`.
    private let lock = NSLock()
    private var current: IngestProgress.Stage?

    func enter(_ stage: IngestProgress.Stage) -> Bool {
        lock.withLock {
            defer { current = stage }
            return current != stage
        }
    }
}
