import ArgumentParser
import EventLog
import Foundation
import Output

/// A failure to report as one sentence on stderr with the matching exit code.
struct CommandFailure: Error {
    /// The exit codes of every command.
    enum Status: Int32 {
        case unexpected = 1
        case integrity = 2
        case complianceViolations = 3
        case usage = 64
        case invalidData = 65
        case key = 77
    }

    var status: Status
    var message: String

    init(_ status: Status, _ message: String) {
        self.status = status
        self.message = message
    }

    init(_ error: EventLogError) {
        let status: Status = switch error.code {
        case .wrongKey, .keyFileUnusable: .key
        case .integrity: .integrity
        case .wrongExpectedVersion, .invalidArgument, .alreadyExists, .storeUnusable, .unsupportedFormat, .keyDestroyed:
            .invalidData
        default: .unexpected
        }
        self.init(status, error.message)
    }
}

/// Runs a command's body, turning every failure into a message on stderr and an exit code.
func reportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let failure as CommandFailure {
        try exit(failure)
    } catch let error as EventLogError {
        try exit(CommandFailure(error))
    } catch let error as OutputError {
        try exit(CommandFailure(error.code == .cannotCreate ? .usage : .unexpected, error.message))
    } catch let exit as ExitCode {
        throw exit
    } catch {
        try exit(CommandFailure(.unexpected, "\(error)"))
    }
}

private func exit(_ failure: CommandFailure) throws -> Never {
    FileHandle.standardError.write(Data("sessionstore: error: \(failure.message)\n".utf8))
    throw ExitCode(failure.status.rawValue)
}
