import Compliance
import SessionModel

/// Who a request acts for and what it may do: from a store token (``AccessToken``) or from a JWT of an
/// identity provider (``IdentityTokens``).
package struct Principal: Sendable {
    /// The name reads are recorded under: "token NAME (ID)" or "jwt ISSUER SUBJECT".
    package var actor: String
    package var scopes: Set<TokenScope>
    /// The people whose sessions a read is limited to; empty: everyone.
    package var subjects: [SubjectHash]

    init(token: AccessToken) {
        actor = token.actor
        scopes = [token.scope]
        subjects = token.subjects
    }

    init(actor: String, scopes: Set<TokenScope>, subjects: [SubjectHash]) {
        self.actor = actor
        self.scopes = scopes
        self.subjects = subjects
    }

    /// Whether any of its scopes grants `needed`.
    func grants(_ needed: TokenScope) -> Bool {
        scopes.contains { $0.grants(needed) }
    }

    /// Whether it may see the session of `subject`: a principal limited to subjects sees only theirs.
    func mayRead(sessionOf subject: SubjectHash?) -> Bool {
        subjects.isEmpty || subject.map(subjects.contains) == true
    }
}
