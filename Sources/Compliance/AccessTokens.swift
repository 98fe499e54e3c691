import EventLog
import Foundation
import Migrations
import Output
import SessionLog
import SessionModel
import Synchronization
import TimeCoding

/// What an access token of `sessionstore serve` may do.
public enum TokenScope: String, CaseIterable, Hashable, Sendable {
    /// Append events (`POST /v1/events`, the live stream); read nothing.
    case ingest
    /// Read sessions: lists, transcripts, events, exports, audio, reports; optionally only some subjects'.
    case read
    /// Read what an auditor checks: consent trails, `audit check`, the access log, checkpoints and proofs,
    /// and the session list; no session content.
    case audit
    /// All of the above.
    case admin

    /// Whether a token of this scope may do what `needed` names.
    public func grants(_ needed: TokenScope) -> Bool {
        self == .admin || self == needed
    }
}

/// An access token as the tokens stream tells it: created, and perhaps revoked. The secret is not here:
/// only its keyed hash is stored.
public struct AccessToken: Hashable, Sendable {
    /// The token's public id: the first part of the token string, which `tokens revoke` names.
    public var id: UUID
    public var scope: TokenScope
    /// The subjects a read token is limited to; empty: every subject.
    public var subjects: [SubjectHash]
    /// When it stops being accepted (ms since 1970).
    public var expiresAt: Int64?
    /// What it is for ("android-backend").
    public var name: String
    /// Who created it, and when (ms since 1970).
    public var createdBy: String
    public var createdAt: Int64
    /// The log position of its `token.created` event.
    public var position: UInt64
    /// Who revoked it, and when; nil while it stands.
    public var revokedBy: String?
    public var revokedAt: Int64?
    fileprivate var secretHash: [UInt8]

    /// Whether the token is accepted at `time` (ms since 1970): not revoked and not expired.
    public func isValid(at time: Int64) -> Bool {
        revokedAt == nil && (expiresAt.map { time < $0 } ?? true)
    }

    /// The name the access log records for reads made with this token: "token NAME (ID)".
    public var actor: String { "token \(name) (\(id.uuidString.lowercased()))" }
}

/// The access tokens of `sessionstore serve`: made, listed, revoked, and checked on every request.
///
/// A token is `sst_` + the token id's 32 hex digits + `_` + a 256-bit secret in base64url (43 characters).
/// The store keeps the id, the scope and the keyed hash of the secret (BLAKE2b-256 with the store's
/// subject-hashing key, of `"sessionstore token v1\n"` + the secret), never the secret: a stolen copy of
/// the store, even with its key, yields no usable token.
public struct AccessTokens: Sendable {
    /// The store whose tokens these are.
    public let log: EventLog
    static let prefix = "sst_"

    /// The tokens of `log`.
    public init(log: EventLog) {
        self.log = log
    }

    /// Makes a token and returns it with its string, which is shown once and never stored.
    public func create(scope: TokenScope, subjects: [SubjectHash] = [], expiresAt: Int64? = nil, name: String, actor: String,
                       at time: Int64) async throws -> (token: AccessToken, secret: String) {
        guard subjects.isEmpty || scope == .read else {
            throw ComplianceError(.invalidRequest, "only a read token can be limited to subjects; a \(scope.rawValue) token covers every subject")
        }
        if let expiresAt, expiresAt <= time {
            throw ComplianceError(.invalidRequest, "the token would expire at \(RFC3339.string(expiresAt)), which is not in the future")
        }
        let id = UUID()
        var generator = SystemRandomNumberGenerator()
        let secret = Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let created = TokenCreated(token: id, secretHash: hash(secret: secret), scope: scope.rawValue, subjects: subjects,
                                   expiresAt: expiresAt, actor: actor, name: name)
        let event = SessionEvent(session: SessionStreams.tokens.uuid, occurredAt: time, payload: .tokenCreated(created))
        let position = try await log.append([SessionMigrations.codec.encode(event)], to: SessionStreams.tokens, keyScope: .audit)
            .positions.lowerBound
        let token = AccessToken(id: id, scope: scope, subjects: subjects, expiresAt: expiresAt, name: name, createdBy: actor,
                                createdAt: time, position: position, secretHash: created.secretHash)
        return (token, Self.prefix + id.uuidString.replacingOccurrences(of: "-", with: "").lowercased() + "_" + secret)
    }

    /// Revokes the token `id`: from now on every request carrying it is refused.
    public func revoke(_ id: UUID, actor: String, at time: Int64) async throws -> AccessToken {
        guard var token = try all().first(where: { $0.id == id }) else {
            throw ComplianceError(.unknownToken, "the store has no access token \(id.uuidString.lowercased())")
        }
        guard token.revokedAt == nil else {
            throw ComplianceError(.invalidRequest, "access token \(id.uuidString.lowercased()) was revoked already, at \(RFC3339.string(token.revokedAt!))")
        }
        let event = SessionEvent(session: SessionStreams.tokens.uuid, occurredAt: time, payload: .tokenRevoked(TokenRevoked(token: id, actor: actor)))
        try await log.append([SessionMigrations.codec.encode(event)], to: SessionStreams.tokens, keyScope: .audit)
        token.revokedBy = actor
        token.revokedAt = time
        return token
    }

    /// Every token made, in the order made, with its revocation if it was revoked.
    public func all() throws -> [AccessToken] {
        try TokenTable(events: read()).tokens
    }

    /// The stream's events as the table folds them.
    fileprivate func read() throws -> [RecordedSessionEvent] {
        let codec = SessionMigrations.codec
        return try log.readStream(SessionStreams.tokens) { try codec.decode($0) }
    }

    fileprivate func hash(secret: String) -> [UInt8] {
        log.identifierHash("sessionstore token v1\n" + secret)
    }

    /// The id in a token string; nil when it is not one.
    public static func id(of presented: String) -> UUID? {
        parse(presented)?.id
    }

    /// The id and secret of a token string; nil when it is not one.
    static func parse(_ presented: String) -> (id: UUID, secret: String)? {
        let parts = presented.split(separator: "_", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "sst", parts[1].count == 32, parts[2].count == 43 else { return nil }
        let hex = parts[1]
        var dashed = String(hex.prefix(8)) + "-" + hex.dropFirst(8).prefix(4) + "-" + hex.dropFirst(12).prefix(4)
        dashed += "-" + hex.dropFirst(16).prefix(4) + "-" + hex.dropFirst(20)
        guard let id = UUID(uuidString: dashed) else { return nil }
        return (id, String(parts[2]))
    }
}

/// Checks presented tokens against the tokens stream, reading it again only when it has grown (a
/// token made or revoked by another process): at most once per `refreshInterval`, or at once for a
/// token id it does not know yet.
public final class TokenVerifier: Sendable {
    private struct Cache {
        var table = TokenTable(events: [])
        var version: UInt64?
        var checkedAt: ContinuousClock.Instant?
    }

    private let tokens: AccessTokens
    private let refreshInterval: Duration
    /// Held while the stream is read again, so that one reader refreshes and the others wait for it.
    private let cache = Mutex(Cache())

    /// A verifier over `log`'s tokens; a revocation by another process takes effect within `refreshInterval`.
    public init(log: EventLog, refreshInterval: Duration = .seconds(1)) {
        tokens = AccessTokens(log: log)
        self.refreshInterval = refreshInterval
    }

    /// The token `presented` stands for when it is valid at `time`; nil when it is malformed, unknown,
    /// wrong, revoked or expired (the caller answers all of these alike, telling nothing).
    public func verify(_ presented: String, at time: Int64) throws -> AccessToken? {
        guard let (id, secret) = AccessTokens.parse(presented) else { return nil }
        let hash = tokens.hash(secret: secret)
        // A token made a moment ago by another process is looked for at once, not after the interval.
        guard let token = try current().byID[id] ?? current(now: true).byID[id],
              constantTimeEqual(token.secretHash, hash), token.isValid(at: time) else { return nil }
        return token
    }

    private func current(now force: Bool = false) throws -> TokenTable {
        try cache.withLock { cache in
            let now = ContinuousClock.now
            if !force, let checkedAt = cache.checkedAt, now - checkedAt < refreshInterval { return cache.table }
            cache.checkedAt = now
            let stored = try tokens.log.streamMetadata(SessionStreams.tokens)?.version
            if stored != cache.version {
                cache.table = TokenTable(events: try tokens.read())
                cache.version = stored
            }
            return cache.table
        }
    }

    private func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// The tokens the stream's events describe.
private struct TokenTable: Sendable {
    var tokens: [AccessToken] = []
    var byID: [UUID: AccessToken] = [:]

    init(events: [RecordedSessionEvent]) {
        var index: [UUID: Int] = [:]
        for recorded in events {
            switch recorded.event.payload {
            case .tokenCreated(let created):
                guard let scope = TokenScope(rawValue: created.scope) else { continue }  // a scope of a newer version: refused
                index[created.token] = tokens.count
                tokens.append(AccessToken(id: created.token, scope: scope, subjects: created.subjects, expiresAt: created.expiresAt,
                                          name: created.name, createdBy: created.actor, createdAt: recorded.event.occurredAt,
                                          position: recorded.position, secretHash: created.secretHash))
            case .tokenRevoked(let revoked):
                guard let at = index[revoked.token], tokens[at].revokedAt == nil else { continue }
                tokens[at].revokedBy = revoked.actor
                tokens[at].revokedAt = recorded.event.occurredAt
            default:
                continue
            }
        }
        byID = Dictionary(uniqueKeysWithValues: tokens.map { ($0.id, $0) })
    }
}
