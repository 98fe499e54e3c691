import ArgumentParser
import Foundation
import Output
import Replay
import SessionLog
import SessionModel

struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Re-drive a stored session's events in order on a virtual clock.",
        discussion: """
            Prints one line per step (step, virtual time, event type, event number). Recorded gaps \
            become waits: none with --speed max, the recorded ones with realtime, or divided by a \
            factor such as 10. A recorded time that goes backwards waits 0 and is noted.

            --format ndjson, json or csv prints the steps as trace rows instead: step, virtual_ms, wait_ms, \
            type, stream_number, views_digest and clock_went_backwards_ms (null unless it did). --trace FILE \
            writes the same rows to a file (as ndjson when --format is text). --digest prints the trace \
            digest (64 hex characters) as the last line (on standard error with a --format other than text, \
            so the rows stay parseable): it depends only on the session's content, so the same session in \
            two stores, or replayed twice, gives the same digest. --verify rebuilds the views while \
            replaying and compares them with the stored projections; on a difference it prints the first \
            divergent event as JSON (view, field, expected, actual, step, stream_number, type) and exits 2.

            --drive 'COMMAND ARGS' replays the session into a system under test instead. Its standard input \
            gets the session's events as NDJSON lines, as `sessionstore events SESSION --with-audio` prints \
            them, each when its virtual time comes (without the session's own transcript events unless \
            --with-transcript); its standard output is read as transcript.partial and transcript.committed \
            events in the ingest shape (session, id and at may be left out: the driver fills them from the \
            virtual clock). What it produced is stored as a new session, a run of the source, with a \
            replay.run record; the run's id is printed. --expect then compares the run with the session \
            (word error rate, alignment per segment, timing) and prints the result (text, json or csv); a \
            run above --max-wer (default 0.15) or --max-commit-latency-ms, or missing a phrase of --phrases, \
            exits 4. A command that exits non-zero, crashes, writes an invalid line, or hangs (--timeout) \
            exits 5 and nothing is stored. --all (or several sessions) drives a suite, --jobs at a time, and \
            prints one row per session; --junit FILE writes JUnit XML. Protocol and examples: docs/REPLAY.md.

            Example: sessionstore replay SESSION --drive 'python3 tools/asr/pocketsphinx_target.py' --expect
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var access: AccessOptions

    @Argument(help: ArgumentHelp("The session id, or a unique prefix of at least 8 characters (with --drive: one or more).",
                                 valueName: "session"))
    var sessions: [String] = []

    @Option(help: ArgumentHelp("max, realtime, or a factor such as 10.", valueName: "speed"))
    var speed = "max"

    @Option(help: ArgumentHelp("Write the trace to this file (replaced only when the replay succeeds).", valueName: "file"))
    var trace: String?

    @OptionGroup var format: FormatOption<ReplayFormats>

    @Flag(help: "Print the trace digest as the last line.")
    var digest = false

    @Flag(help: "Compare the replayed views with the stored projections (exit 2 on a difference).")
    var verify = false

    @Option(help: ArgumentHelp("Stop after the last event at or before this virtual time.", valueName: "ms"))
    var until: Int64?

    @Flag(help: "Print no line per step (with --drive: no summary on standard error).")
    var quiet = false

    @OptionGroup(title: "Driving a system under test") var driveOptions: DriveOptions

    func validate() throws {
        if driveOptions.drive == nil {
            guard sessions.count == 1 else { throw ValidationError("give one session to replay (several only with --drive)") }
        } else {
            if driveOptions.all, !sessions.isEmpty { throw ValidationError("give sessions or --all, not both") }
            if !driveOptions.all, sessions.isEmpty { throw ValidationError("give the session to drive, or --all") }
            for (given, name) in [(verify, "--verify"), (digest, "--digest"), (trace != nil, "--trace"), (until != nil, "--until")] where given {
                throw ValidationError("\(name) does not go with --drive")
            }
            if format.format == .ndjson { throw ValidationError("--format ndjson is for trace rows; --drive prints text, json or csv") }
        }
    }

    func run() async throws {
        if driveOptions.drive != nil { return try await runDrive() }
        let session = sessions[0]
        try await reportingFailures {
            guard let pace = ReplaySpeed(argument: speed) else {
                throw CommandFailure(.usage, "--speed \(speed) is not max, realtime or a positive factor such as 10")
            }
            let log = try storeOptions.openLog()
            let id = try SessionLookup.existing(session, in: log)
            var replay = try await access.open(log).read(.replay, of: [id]) { try SessionReplay.load(id, from: log, speed: pace, until: until) }
            let rows = format.format == .text ? nil : format.format
            let traceSink = try trace.map { try OutputSink.file($0) }
            var traceWriter = traceSink.map { RowWriter<TraceRow>(format: rows ?? .ndjson, sink: $0) }
            let output = OutputSink.standardOutput()
            var rowWriter = rows.flatMap { quiet ? nil : RowWriter<TraceRow>(format: $0, sink: output) }
            let onStep = { (step: ReplayStep) throws in
                try traceWriter?.write(TraceRow(step: step))
                if rows != nil {
                    try rowWriter?.write(TraceRow(step: step))
                } else if !quiet {
                    output.write(Self.humanLine(step))
                }
            }
            let result: (digest: String, divergence: ReplayDivergence?)
            if verify {
                result = try await replay.verify(against: log, onStep: onStep)
            } else {
                result = (try await replay.run(onStep), nil)
            }
            try traceWriter?.finish()
            try traceSink?.close()
            try rowWriter?.finish()
            if let divergence = result.divergence {
                // Beside trace rows on standard output it goes to standard error, so that the rows stay parseable.
                let sink = rows == nil ? output : try OutputSink.file("/dev/stderr")
                try sink.writeObject(DivergenceDocument(divergence: divergence))
                if sink !== output { try sink.close() }
            }
            if digest {
                if rows == nil {
                    output.write(result.digest + "\n")
                } else {
                    Console.err("trace digest: \(result.digest)\n")
                }
            }
            try output.close()
            if let divergence = result.divergence { throw CommandFailure(.integrity, "\(divergence)") }
            if verify { Console.err("the replayed views match the stored projections\n") }
        }
    }

    static func humanLine(_ step: ReplayStep) -> String {
        let seconds = String(format: "%.3f", Double(step.virtualMilliseconds) / 1000)
        let backwards = step.clockWentBackwardsBy.map { " (recorded clock went back \($0) ms)" } ?? ""
        return "\(step.number)\t\(seconds) s\t\(step.event.event.type.rawValue)\tevent \(step.event.streamNumber)\(backwards)\n"
    }
}
