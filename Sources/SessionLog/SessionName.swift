import Foundation

/// A session as a person names it, on the command line and in a request's path alike: its whole id, or a prefix of
/// its lowercase hyphenated id at least ``SessionLookup/minimumPrefix`` characters long (hex digits, and dashes where
/// the id has them). Which session a prefix names is ``SessionLookup``'s to say.
public struct SessionName: LosslessStringConvertible, Hashable, Sendable {
    /// The whole id, when the name is one.
    public let id: UUID?
    /// The name in lower case: the id as the store writes it, or the prefix.
    public let description: String

    /// The name `text` is, or nil when it is neither an id nor a prefix long enough to be one.
    public init?(_ text: String) {
        if let id = UUID(uuidString: text) {
            self.id = id
            description = id.uuidString.lowercased()
            return
        }
        let prefix = text.lowercased()
        guard prefix.count >= SessionLookup.minimumPrefix, prefix.utf8.count <= 36,
              prefix.allSatisfy({ $0.isHexDigit || $0 == "-" }) else { return nil }
        id = nil
        description = prefix
    }

    /// `text` as a name, or the sentence that says what a name is.
    /// - Throws: ``SessionLookupError/Code/notAnID``.
    public static func parsing(_ text: String) throws -> SessionName {
        guard let name = SessionName(text) else {
            throw SessionLookupError(.notAnID, "\(text) is not a session id: give the whole id (a UUID such as "
                                     + "3f2c8a1e-5b7d-4c9e-8f10-2a3b4c5d6e7f) or a unique prefix of at least \(SessionLookup.minimumPrefix) characters of it")
        }
        return name
    }
}
