import Foundation

extension ConsentChange {
    init(_ m: Sessionstore_V1_ConsentChange) throws {
        self.init()
        subject = try SessionPayload.subject(m.subjectHash, field: 8)
        consentType = m.consentType
        method = m.method
        policyVersion = m.hasPolicyVersion ? m.policyVersion : nil
    }

    var message: Sessionstore_V1_ConsentChange {
        var m = Sessionstore_V1_ConsentChange()
        m.subjectHash = Data(subject?.bytes ?? [])
        m.consentType = consentType
        m.method = method
        if let policyVersion { m.policyVersion = policyVersion }
        return m
    }

    init?(json f: inout JSONFields, hashIdentifier: (String) -> [UInt8]) {
        let subject = f.subject(hashIdentifier), consentType = f.string("consent_type", maxBytes: 128)
        let method = f.string("method", maxBytes: 128), policy = f.string("policy_version", required: false, maxBytes: 128)
        guard let subject, let consentType, let method else { return nil }
        self.init(subject: subject, consentType: consentType, method: method, policyVersion: policy)
    }

    func write(to fields: inout some PayloadFieldWriter) {
        fields.field("subject_hash", subject?.description)
        fields.field("consent_type", consentType)
        fields.field("method", method)
        fields.field("policy_version", policyVersion)
    }
}
