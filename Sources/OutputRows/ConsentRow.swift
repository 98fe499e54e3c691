import Output
import Projections
import SessionModel

/// A grant or revocation in a person's consent trail.
package struct ConsentRow: OutputRow {
    package static let columns = ["subject_hash", "session", "consent_type", "status", "method", "policy_version", "occurred_at",
                          "recorded_at", "position"]

    package var subject: SubjectHash
    package var entry: ConsentTrail.Entry

    package init(subject: SubjectHash, entry: ConsentTrail.Entry) {
        self.subject = subject
        self.entry = entry
    }

    package func write(to fields: inout Fields) {
        fields.field("subject_hash", subject.description)
        fields.field("session", id: entry.session)
        fields.field("consent_type", entry.consentType)
        fields.field("status", entry.granted ? "granted" : "revoked")
        fields.field("method", entry.method)
        fields.field("policy_version", entry.policyVersion)
        fields.field("occurred_at", time: entry.occurredAt)
        fields.field("recorded_at", time: entry.recordedAt)
        fields.field("position", entry.position)
    }
}
