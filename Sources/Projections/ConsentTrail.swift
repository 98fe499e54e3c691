import Foundation
import SessionModel

/// Every grant and revocation of consent by one subject, in the order recorded.
public struct ConsentTrail: Hashable, Sendable {
    public struct Entry: Hashable, Sendable {
        public var granted: Bool
        public var session: UUID
        public var consentType: String
        public var method: String
        public var policyVersion: String?
        /// Client time, ms since 1970.
        public var occurredAt: Int64
        /// Store time, ms since 1970.
        public var recordedAt: Int64
    }

    public let subject: SubjectHash
    public internal(set) var entries: [Entry] = []

    public init(subject: SubjectHash) {
        self.subject = subject
    }

    /// Whether consent of `type` is granted after the last entry.
    public func isGranted(_ type: String) -> Bool {
        entries.last { $0.consentType == type }?.granted ?? false
    }

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
                               occurredAt: recorded.event.occurredAt, recordedAt: recorded.recordedAt))
    }
}
