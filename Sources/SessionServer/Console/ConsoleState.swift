import Foundation

/// What the console remembers between pages, for as long as the server runs: the last check of the
/// consent and retention rules, whose violations the session list shows. (Verifications and
/// checkpoints are recorded in the store itself: ``IntegrityEvidence``.)
final class ConsoleState: @unchecked Sendable {
    // @unchecked: every stored property is guarded by `lock`.
    private let lock = NSLock()
    private var audit: AuditCheck?

    struct AuditCheck {
        var violationsBySession: [UUID: Int]
        var violations: Int
        var ranAt: Int64
    }

    var lastAudit: AuditCheck? {
        get { lock.withLock { audit } }
        set { lock.withLock { audit = newValue } }
    }
}
