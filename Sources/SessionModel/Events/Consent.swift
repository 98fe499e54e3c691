import Foundation

/// A grant or a revocation of consent by a subject.
public struct ConsentChange: Hashable, Sendable {
    /// The person whose consent changed (keyed hash; never the raw id).
    public var subject: SubjectHash?
    /// What is consented to, such as `audio_recording` or `transcription`.
    public var consentType: String = ""
    /// How consent was asked, such as `in_app_prompt`.
    public var method: String = ""
    /// The version of the policy consented to, when the client names one.
    public var policyVersion: String?

    init() {}

    /// A grant or revocation of `consentType` by `subject`, obtained by `method`.
    public init(subject: SubjectHash, consentType: String, method: String, policyVersion: String? = nil) {
        self.subject = subject
        self.consentType = consentType
        self.method = method
        self.policyVersion = policyVersion
    }
}
