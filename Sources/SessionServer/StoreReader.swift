import Compliance
import EventLog
import Foundation
import Projections
import SessionModel

/// The store's views as the server reads them: brought up to date before a read (one catch-up at a
/// time, so concurrent readers do not fold the same events twice), then read.
actor StoreReader {
    let log: EventLog
    private let runner: ProjectionRunner

    init(log: EventLog) {
        self.log = log
        runner = ProjectionRunner(log: log)
    }

    /// The views, with every event committed so far folded in.
    func upToDate() throws -> ProjectionRunner {
        try runner.catchUp()
        return runner
    }

    /// The subject a raw user id or a 64-digit subject hash names.
    nonisolated func subject(_ argument: String) -> SubjectHash {
        if argument.utf8.count == 64, let hash = SubjectHash(hex: argument.lowercased()) { return hash }
        return SubjectHash(bytes: log.identifierHash(argument))!
    }

    /// Records a read of session content in the access log, as the CLI's reads are; refuses it when the
    /// store's policy requires a purpose and none is given.
    nonisolated func recordRead(_ command: String, of sessions: [UUID], by token: AccessToken, purpose: String?) async throws {
        let access = AccessLog(log: log)
        do {
            try access.check(purpose: purpose)
        } catch let error as ComplianceError where error.code == .purposeRequired {
            throw Problem.badRequest("this store records a purpose for every read: add ?purpose=… to the request")
        }
        try await access.record(AccessRead(actor: token.actor, purpose: purpose, command: command, sessions: sessions),
                                at: Int64(Date().timeIntervalSince1970 * 1000))
    }
}

extension AccessToken {
    /// Whether this token may see the session of `subject`: a read token limited to subjects sees only theirs.
    func mayRead(sessionOf subject: SubjectHash?) -> Bool {
        subjects.isEmpty || subject.map(subjects.contains) == true
    }
}
