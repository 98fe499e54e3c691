import Foundation

/// A grant or a revocation of consent by a subject.
public struct ConsentChange: Hashable, Sendable, WirePayload {
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

    func write(to writer: inout WireWriter) {
        writer.bytes(8, subject?.bytes ?? [])
        writer.string(9, consentType)
        writer.string(10, method)
        writer.optionalString(11, policyVersion)
    }

    mutating func read(_ field: Int, _ type: UInt8, from reader: inout WireReader) throws -> Bool {
        switch field {
        case 8: subject = try reader.subject(type, field)
        case 9: consentType = try reader.text(type, field)
        case 10: method = try reader.text(type, field)
        case 11: policyVersion = try reader.text(type, field)
        default: return false
        }
        return true
    }
}
