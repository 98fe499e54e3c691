import Foundation
import SessionModel

/// Every grant and revocation of consent by one subject, in the order recorded.
public struct ConsentTrail: Hashable, Sendable {
    /// One grant or revocation.
    public struct Entry: Hashable, Sendable {
        /// True for a grant, false for a revocation.
        public var granted: Bool
        /// The session in which it was given or taken back.
        public var session: UUID
        /// What it is about, such as `audio_recording` or `transcription`.
        public var consentType: String
        /// How it was obtained, such as `in_app_prompt`.
        public var method: String
        /// The version of the policy, when the client names one.
        public var policyVersion: String?
        /// Client time, ms since 1970.
        public var occurredAt: Int64
        /// Store time, ms since 1970.
        public var recordedAt: Int64
        /// The global position of the event's copy in the subject's consent stream (log order).
        public var position: UInt64 = 0
    }

    /// The person whose trail this is.
    public let subject: SubjectHash
    /// Every grant and revocation, in log order.
    public internal(set) var entries: [Entry] = []

    /// An empty trail of `subject`.
    public init(subject: SubjectHash) {
        self.subject = subject
    }

    /// Whether consent of `type` is granted after the last entry.
    public func isGranted(_ type: String) -> Bool {
        entries.last { $0.consentType == type }?.granted ?? false
    }

    /// Adds a consent event stored in the subject's consent stream; other events change nothing.
    public mutating func apply(_ recorded: RecordedSessionEvent) {
        guard let (subject, entry) = Self.entry(from: recorded), subject == self.subject else { return }
        entries.append(entry)
    }

    /// The subject and trail entry of a consent event; nil for any other event.
    public static func entry(from recorded: RecordedSessionEvent) -> (SubjectHash, Entry)? {
        let granted: Bool
        let change: ConsentChange
        switch recorded.event.payload {
        case .consentGranted(let value): (granted, change) = (true, value)
        case .consentRevoked(let value): (granted, change) = (false, value)
        default: return nil
        }
        guard let subject = change.subject else { return nil }
        return (subject, Entry(granted: granted, session: recorded.event.session, consentType: change.consentType,
                               method: change.method, policyVersion: change.policyVersion,
                               occurredAt: recorded.event.occurredAt, recordedAt: recorded.recordedAt,
                               position: recorded.position))
    }
}
