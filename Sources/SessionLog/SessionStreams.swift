import EventLog
import Foundation
import SessionModel

/// Which stream holds what: each session's events in a stream of its own (under the session's data
/// key), and each subject's consent events also in a consent stream (under the audit key), so that
/// the consent proof outlives the erasure of the session data.
public enum SessionStreams {
    /// The store's audit stream (under the audit key): events about the store itself, such as
    /// `export.performed`. A version 8 UUID, fixed for every store.
    public static let audit = StreamID(UUID(version8From: SHA256.hash(Array("sessionstore audit stream v1".utf8))))

    /// The access tokens of `sessionstore serve` (under the audit key): `token.created` and `token.revoked`,
    /// kept apart from the audit stream so that checking a token reads only them. A version 8 UUID.
    public static let tokens = StreamID(UUID(version8From: SHA256.hash(Array("sessionstore tokens stream v1".utf8))))

    /// The store's integrity evidence (under the audit key): `integrity.verified` and `checkpoint.issued`,
    /// kept apart so that the console's integrity page reads only them. A version 8 UUID.
    public static let integrity = StreamID(UUID(version8From: SHA256.hash(Array("sessionstore integrity stream v1".utf8))))

    /// Whether the stream `id` holds events about the store (the audit, tokens and integrity streams), not a session's.
    public static func holdsStoreEvents(_ id: UUID) -> Bool {
        id == audit.uuid || id == tokens.uuid || id == integrity.uuid
    }

    /// A session's stream: its id is the session id.
    public static func session(_ id: UUID) -> StreamID { StreamID(id) }

    /// The subject's consent stream: a version 8 (RFC 9562, custom) UUID made from the subject hash,
    /// so it never equals a random (version 4) session id.
    public static func consent(of subject: SubjectHash) -> StreamID {
        var bytes = Array(subject.bytes.prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80  // version 8
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 9562 variant
        return StreamID((try? UUID(wire: bytes, field: 0))!)
    }
}
