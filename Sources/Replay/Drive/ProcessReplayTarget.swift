import EventRows
import Foundation
import Ingest
import Output
import SessionAudio
import SessionModel
import Subprocess
import Synchronization
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// A system under test run as a command (`replay --drive`): it reads the source session's events as
/// NDJSON lines on its standard input, in the shape `sessionstore events SESSION --with-audio` prints,
/// and writes the events it produces as NDJSON lines in the ingest shape on its standard output
/// (docs/REPLAY.md). Its standard error goes to this process's, or is appended to a log file.
///
/// The command runs in a process group of its own; when a drive is cancelled (the driver's timeout),
/// the group is sent SIGTERM and, a second later, SIGKILL.
public struct ProcessReplayTarget: ReplayTarget {
    /// The command as given.
    public let command: String
    /// The executable and its arguments.
    public let arguments: [String]
    /// Where the command's standard error goes: nil for this process's; otherwise a file appended to.
    public var standardErrorPath: String?
    /// The longest line the command may write.
    public static let maximumLineBytes = 16 << 20

    public var name: String { command }

    /// A target running `command`, split into words as a shell would but run without one: write
    /// `sh -c '…'` to have a shell.
    public init(command: String, standardErrorPath: String? = nil) throws(ReplayDriveError) {
        do {
            arguments = try CommandLineWords.split(command)
        } catch {
            throw .couldNotStart(command: command, reason: "the command cannot be split into words: \(error.reason)")
        }
        self.command = command
        self.standardErrorPath = standardErrorPath
    }

    public func drive(_ input: ReplayInput, _ output: ReplayOutput) async throws {
        // A write to a pipe whose reader has gone must fail with EPIPE, not end this process.
        signal(SIGPIPE, SIG_IGN)
        var options = PlatformOptions()
        options.processGroupID = 0
        options.teardownSequence = [.send(signal: .terminate, toProcessGroup: true, allowedDurationToNextStep: .seconds(1)),
                                    .send(signal: .kill, toProcessGroup: true, allowedDurationToNextStep: .seconds(1))]
        let errorLog = try openErrorLog()
        defer { if let errorLog { try? errorLog.close() } }
        let executable: Executable = arguments[0].contains("/") ? .path(FilePath(arguments[0])) : .name(arguments[0])
        let parser = ProducedEventParser(session: input.session)
        let result: ExecutionResult<Feed, SequenceOutput, FileDescriptorOutput>
        let processGroup = ProcessGroup()
        defer { processGroup.ended() }
        let pipe: PipeFeed
        do { pipe = try PipeFeed { input.tookEvents($0) } } catch {
            throw ReplayDriveError.couldNotStart(command: command, reason: "cannot make a pipe for its standard input: \(error)")
        }
        do {
            result = try await withTaskCancellationHandler {
                try await run(executable, arguments: Arguments(Array(arguments.dropFirst())), platformOptions: options,
                              input: .fileDescriptor(FileDescriptor(rawValue: pipe.readEnd), closeAfterSpawningProcess: true),
                              output: .sequence,
                              error: errorLog.map { .fileDescriptor($0, closeAfterSpawningProcess: false) } ?? .currentStandardError
                ) { execution in
                    processGroup.started(execution.processIdentifier.value)
                    return try await withThrowingTaskGroup(of: Feed?.self) { tasks in
                        tasks.addTask {
                            var feed = await Self.feed(input, to: pipe)
                            if !feed.complete { pipe.abandon() }  // never an end of input after a part of a line
                            if await !pipe.finish() { feed.complete = false }
                            feed.taken = input.monitor.eventsTaken  // events the command read, not only those written
                            return feed
                        }
                        tasks.addTask {
                            do {
                                try await Self.read(execution.standardOutput, parser: parser, into: output)
                            } catch {
                                processGroup.kill()  // before its input is cut short, which it would report too
                                throw error
                            }
                            return nil
                        }
                        var feed = Feed(taken: 0, complete: false)
                        while let result = try await tasks.next() {
                            if let result { feed = result }
                        }
                        return feed
                    }
                }
            } onCancel: {
                // Subprocess tears a cancelled child down in a task of its own, which this process may
                // not live to see: the whole group is killed here, before the drive returns.
                processGroup.kill()
                pipe.abandon()
            }
        } catch let error as SubprocessError {
            pipe.abandon()
            throw ReplayDriveError.couldNotStart(command: command, reason: "\(error)")
        }
        let feed = result.closureResult
        switch result.terminationStatus {
        case .exited(0):
            if !feed.complete { throw ReplayDriveError.exitedBeforeInputEnded(taken: feed.taken) }
        case .exited(let status):
            throw ReplayDriveError.exited(status: status, taken: feed.taken)
        case .signaled(let signal):
            throw ReplayDriveError.killed(signal: signal, taken: feed.taken)
        }
    }

    /// Kills every target command still running, with its process group: for a program that drives and
    /// is itself being stopped (SIGINT, SIGTERM). A target runs in a process group of its own, so a
    /// terminal's Ctrl-C does not reach it, and one that does not read to the end of its input would
    /// outlive the driver.
    public static func killRunningTargets() {
        ProcessGroup.running.withLock { groups in groups.forEach { $0.kill() } }
    }

    /// The command's process group, killed when the drive is cancelled (it hung).
    private final class ProcessGroup: Sendable {
        static let running = Mutex<[ProcessGroup]>([])
        /// The group's leader once started; `killed` once ``kill()`` was called (perhaps before the start).
        private let state = Mutex<(leader: pid_t?, killed: Bool)>((nil, false))

        func started(_ pid: pid_t) {
            let kill = state.withLock { state in
                state.leader = pid
                return state.killed
            }
            Self.running.withLock { $0.append(self) }
            if kill { self.kill() }
        }

        func ended() {
            Self.running.withLock { groups in groups.removeAll { $0 === self } }
        }

        func kill() {
            state.withLock { state in
                state.killed = true
                if let leader = state.leader { _ = Foundation.kill(-leader, SIGKILL) }
            }
        }
    }

    /// How far the input went: events taken, and whether all were written.
    struct Feed: Sendable {
        var taken: Int
        var complete: Bool
    }

    /// Writes every event as an NDJSON line, the events handed over together in one write, until the
    /// command stops reading (it exited, or closed its standard input).
    private static func feed(_ input: ReplayInput, to pipe: PipeFeed) async -> Feed {
        let encoder = RowEncoder<EventRow>(format: .ndjson)
        var batches = input.batches(countingTakes: false)  // the pipe counts an event taken once the command read it
        var taken = 0
        var lines: [UInt8] = []
        do {
            while let batch = await batches.next() {
                taken += batch.count
                lines.removeAll(keepingCapacity: true)
                for recorded in batch {
                    encoder.encode(try EventRow(recorded: recorded, withAudio: true), appendingTo: &lines)
                }
                // A write cut short (the drive is being cancelled, or the command exited) is the end.
                guard await pipe.send(lines, events: batch.count) else { return Feed(taken: taken, complete: false) }
            }
        } catch {
            return Feed(taken: taken, complete: false)
        }
        return Feed(taken: taken, complete: true)
    }

    /// Parses each line of the command's standard output into an event and hands it over; blank lines
    /// are skipped.
    private static func read(_ stream: SubprocessOutputSequence, parser: ProducedEventParser, into output: ReplayOutput) async throws {
        var pending: [UInt8] = []
        var lineNumber = 0
        func take(_ line: ArraySlice<UInt8>) throws {
            lineNumber += 1
            var line = line
            if line.last == 0x0D { line = line.dropLast() }
            guard line.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return }
            switch parser.parse(Data(line), line: lineNumber) {
            case .success(let event): try output.emit(event)
            case .failure(let failure): throw ReplayDriveError.invalidOutput(failure.problems[0])
            }
        }
        for try await buffer in stream {
            buffer.withUnsafeBytes { pending.append(contentsOf: $0) }
            var start = pending.startIndex
            while let newline = pending[start...].firstIndex(of: 0x0A) {
                try take(pending[start..<newline])
                start = newline + 1
            }
            pending.removeSubrange(..<start)
            if pending.count > maximumLineBytes {
                throw ReplayDriveError.invalidOutput(IngestProblem(line: lineNumber + 1, field: nil,
                                                                   reason: "is longer than \(maximumLineBytes) bytes"))
            }
        }
        if !pending.isEmpty { try take(pending[...]) }
    }

    private func openErrorLog() throws -> FileDescriptor? {
        guard let standardErrorPath else { return nil }
        do {
            return try FileDescriptor.open(FilePath(standardErrorPath), .writeOnly, options: [.create, .append],
                                           permissions: [.ownerReadWrite, .groupRead, .otherRead])
        } catch {
            throw ReplayDriveError.couldNotStart(command: command, reason: "--target-log \(standardErrorPath) cannot be opened: \(error)")
        }
    }
}
