import Compliance
import EventLog
import Foundation

/// What the console remembers between pages, for as long as the server runs: the last verification of
/// the store, the last check of the consent and retention rules (whose violations the session list
/// shows), and the checkpoints the server gave out.
final class ConsoleState: @unchecked Sendable {
    // @unchecked: every stored property is guarded by `lock`.
    private let lock = NSLock()
    private var verification: Verification?
    private var audit: AuditCheck?
    private var checkpoints: [GivenCheckpoint] = []

    struct Verification {
        var report: VerificationReport
        var ranAt: Int64
        var took: Duration
    }

    struct AuditCheck {
        var violationsBySession: [UUID: Int]
        var violations: Int
        var ranAt: Int64
    }

    struct GivenCheckpoint {
        var at: Int64
        var size: UInt64
        var rootHash: [UInt8]
    }

    var lastVerification: Verification? {
        get { lock.withLock { verification } }
        set { lock.withLock { verification = newValue } }
    }

    var lastAudit: AuditCheck? {
        get { lock.withLock { audit } }
        set { lock.withLock { audit = newValue } }
    }

    /// Keeps the last 20 checkpoints given out (one per size).
    func gave(_ checkpoint: Checkpoint, at time: Int64) {
        lock.withLock {
            guard checkpoints.last?.size != checkpoint.size else { return }
            checkpoints.append(GivenCheckpoint(at: time, size: checkpoint.size, rootHash: checkpoint.rootHash))
            if checkpoints.count > 20 { checkpoints.removeFirst() }
        }
    }

    var givenCheckpoints: [GivenCheckpoint] { lock.withLock { checkpoints } }
}
