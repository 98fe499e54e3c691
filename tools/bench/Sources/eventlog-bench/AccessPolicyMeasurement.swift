import BenchSupport
import Compliance
import EventLog
import Foundation
import SessionLog
import SessionModel

/// What finding the access policy costs a reading command as reads are recorded: a store whose audit
/// stream holds a policy and then `reads` recorded reads, and `samples` lookups of the policy in force,
/// each way in the same store, alternating: the whole audit stream folded (`AuditStream.latest`, how it was
/// found before the view `access-policy`), and `AccessLog.policy()` (the view and the events after it). Also a
/// session's compliance check (`ViolationCheck.run(session:)`), whose store events come from the view
/// `rule-events`: before it, the check folded the whole audit stream, as the first way does.
struct AccessPolicyMeasurement {
    let measurements: Measurements
    let samples: Int

    func run(reads: [Int]) async throws {
        for count in reads {
            let path = try measurements.freshStorePath("access-policy")
            var options = benchOptions
            options.durable = false  // filling the store; the lookups only read
            let log = try EventLog.create(at: path, key: .keyFile(measurements.keyPath), options: options)
            let access = AccessLog(log: log)
            try await access.setPolicy(AccessPolicy(purposeRequired: true), at: 0)
            let read = AccessRead(actor: "bench", purpose: "QA", command: "transcript", sessions: [UUID()])
            for number in 0..<count { try await AuditStream.append(.accessRead(read), at: Int64(number), to: log) }
            _ = try access.policy()  // the first reader after the reads folds them into the view
            let check = ViolationCheck(log: log), session = UUID()
            _ = try check.run(session: session)  // the first check after the reads folds them into the view `rule-events`
            var wholeStream: [Double] = [], view: [Double] = [], sessionCheck: [Double] = []
            for _ in 0..<samples {
                wholeStream.append(try Report.time {
                    _ = try AuditStream.latest(in: log) { if case .accessPolicySet(let policy) = $0 { policy } else { nil } }
                })
                view.append(try Report.time { _ = try access.policy() })
                sessionCheck.append(try Report.time { _ = try check.run(session: session) })
            }
            let inForce = try access.policy().purposeRequired
            precondition(inForce, "the policy set is in force")
            try log.close()
            Report.emit(["scenario": "access-policy", "backend": measurements.postgresServer == nil ? "lmdb" : "postgresql",
                         "reads_recorded": count, "whole_audit_stream": Report.latencyFields(wholeStream),
                         "access_policy_view": Report.latencyFields(view), "session_check": Report.latencyFields(sessionCheck)])
        }
    }
}
