import ArgumentParser
import Audio
import Compliance
import EventLog
import Exports
import Foundation
import Ingest
import Output
import Replay
import SessionModel

/// The exit codes of every command (README, `sessionstore --help`).
enum ExitStatus: Int32 {
    case unexpected = 1
    case integrity = 2
    case complianceViolations = 3
    /// A run failed its check (`compare`, `replay --expect`).
    case checkFailed = 4
    /// The system under test failed: it exited non-zero, crashed, hung or wrote an invalid line.
    case targetFailed = 5
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
            self.init(Self.status(of: error.code), Self.sentence(for: error))
        case let error as SessionModelError:
            self.init(.invalidData, error.message)
        case let error as AudioError:
            let status: ExitStatus = switch error.code {
            case .unsupportedContainer, .cannotCreate: .usage
            case .unreadable, .malformed: .invalidData
            default: .unexpected
            }
            self.init(status, error.message)
        case let error as FixtureError:
            self.init(.invalidData, error.message)
        case let error as ComplianceError:
            self.init(error.code == .invalidRequest ? .usage : .invalidData, error.message)
        case let error as ExportError:
            self.init(error.code == .ambiguousSession || error.code == .invalidRequest ? .usage : .invalidData, error.message)
        case let error as OutputError:
            self.init(error.code == .cannotCreate ? .usage : .unexpected, error.message)
        case let divergence as ReplayDivergence:
            self.init(.integrity, divergence.description)
        case let error as ReplayDriveError:
            if case .sourceUnusable = error { self.init(.invalidData, error.description) } else { self.init(.targetFailed, error.description) }
        case let failure as IngestFailure:
            self.init(.invalidData, failure.problems.first.map { "\($0)" } ?? failure.description)
        default:
            self.init(.unexpected, "\(error)")
        }
    }

    private static func status(of code: EventLogError.Code) -> ExitStatus {
        switch code {
        case .wrongKey, .keyFileUnusable, .permissionDenied: .key
        case .integrity: .integrity
        case .storeBusy: .busy
        case .unavailable: .unavailable
        case .wrongExpectedVersion, .invalidArgument, .alreadyExists, .storeUnusable, .storeMissing, .unsupportedFormat,
             .migrationRequired, .keyDestroyed:
            .invalidData
        default: .unexpected
        }
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
        FileHandle.standardError.write(Data("sessionstore: error: \(failure.message)\n".utf8))
        throw ExitCode(failure.status.rawValue)
    }
}
