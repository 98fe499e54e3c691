import Foundation
import Synchronization

/// What the console remembers between pages, for as long as the server runs: the last check of the
/// consent and retention rules, whose violations the session list shows. (Verifications and
/// checkpoints are recorded in the store itself: ``IntegrityEvidence``.)
final class ConsoleState: Sendable {
    private let audit = Mutex<AuditCheck?>(nil)

    struct AuditCheck {
        var violationsBySession: [UUID: Int]
        var violations: Int
        var ranAt: Int64
    }

    var lastAudit: AuditCheck? {
        get { audit.withLock { $0 } }
        set { audit.withLock { $0 = newValue } }
    }
}
