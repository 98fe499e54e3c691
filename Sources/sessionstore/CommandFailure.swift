import ArgumentParser
import EventLog
import Failures
import Foundation
import Output

/// The exit codes of every command (docs/CLI.md, `sessionstore --help`).
enum ExitStatus: Int32 {
    case unexpected = 1
    case integrity = 2
    case complianceViolations = 3
    /// A run failed its check (`compare`, `replay --expect`).
    case checkFailed = 4
    /// The system under test failed: it exited non-zero, crashed, hung or wrote an invalid line.
    case targetFailed = 5
    /// A legal hold keeps what was asked to be destroyed (`erase`).
    case held = 6
    case usage = 64
    case invalidData = 65
    case unavailable = 69
    case busy = 75
    case key = 77
}

/// A failure to report as one sentence on stderr with its exit status.
struct CommandFailure: Error {
    var status: ExitStatus
    var message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }
}

extension CommandFailure {
    /// The one place where an error of any layer becomes an exit status and a sentence.
    init(_ error: any Error) {
        switch error {
        case let failure as CommandFailure:
            self = failure
        case let error as EventLogError:
            self.init(Self.status(of: error), Self.sentence(for: error))
        case let error as any CodedError:
            self.init(Self.status(of: error), error.message)
        default:
            self.init(.unexpected, "\(error)")
        }
    }

    /// The exit status of an error's kind (``FailureKind``, the one table for the CLI and the server).
    static func status(of error: any CodedError) -> ExitStatus {
        ExitStatus(rawValue: error.kind.exitStatus) ?? .unexpected
    }

    /// The engine's sentence, with the command that fixes it where there is one.
    private static func sentence(for error: EventLogError) -> String {
        switch error.code {
        case .storeMissing: error.message + "; run `sessionstore init` first"
        case .migrationRequired: error.message + "; run `sessionstore migrate` to upgrade it"
        default: error.message
        }
    }
}

/// Runs a command's body, turning every failure into a message on stderr and an exit code.
func reportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let exit as ExitCode {
        throw exit
    } catch {
        let failure = CommandFailure(error)
        Console.err("sessionstore: error: \(failure.message)\n")
        throw ExitCode(failure.status.rawValue)
    }
}
