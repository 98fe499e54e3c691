import ArgumentParser
import Compliance
import Foundation
import Output
import SessionLog
import SessionModel
import TimeCoding

struct TokensCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens",
        abstract: "Access tokens for the HTTP server (serve): create, list, revoke.",
        discussion: """
            Every request to the server carries a token (Authorization: Bearer TOKEN). A token has one scope: \
            ingest (append events; read nothing), read (sessions, transcripts, events, exports; optionally only \
            some people's, --subject), audit (consent trails, audit check, the access log, checkpoints and \
            proofs, the session list) or admin (all of them). The store keeps only a keyed hash of each \
            token's secret (token.created in the store's tokens stream); the token is printed once, by \
            `tokens create`. docs/SERVER.md, "Access".
            """,
        subcommands: [TokensCreateCommand.self, TokensListCommand.self, TokensRevokeCommand.self]
    )
}

struct TokensCreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Make an access token and print it (once: the store keeps only its hash).",
        discussion: """
            Prints the token (sst_…) on the first line, then, on standard error, its id, which `tokens list` \
            shows and `tokens revoke` takes. With --format json, one object {token, token_id, scope, …}.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: ArgumentHelp("What the token may do: ingest, read, audit or admin.", valueName: "scope"))
    var scope: String

    @Option(help: ArgumentHelp("What the token is for (\"android-backend\"); the access log names reads by it.", valueName: "text"))
    var name: String

    @Option(name: .customLong("subject"), help: ArgumentHelp(
        "Limit a read token to this person's sessions (their raw user id, hashed with the store's key). Repeatable.", valueName: "user-id"))
    var subjects: [String] = []

    @Option(help: ArgumentHelp("Refuse the token from this RFC 3339 UTC time on (default: until revoked).", valueName: "time"))
    var expires: String?

    @Option(help: ArgumentHelp("Who makes the token, for the audit trail. Default: the operating-system user.", valueName: "name"))
    var actor: String?

    @OptionGroup var output: OutputOptions<SecretFormats>

    func validate() throws {
        if TokenScope(rawValue: scope) == nil {
            throw ValidationError("--scope \(scope) is not a scope; give ingest, read, audit or admin.")
        }
        if let expires, RFC3339.milliseconds(expires) == nil {
            throw ValidationError("--expires \(expires) is not an RFC 3339 UTC time such as 2027-06-01T00:00:00Z.")
        }
        if name.isEmpty || name.utf8.count > 200 { throw ValidationError("--name must be 1 to 200 bytes.") }
    }

    func run() async throws {
        try await reportingFailures {
            let log = try storeOptions.openLog()
            let (token, secret) = try await AccessTokens(log: log).create(
                scope: TokenScope(rawValue: scope)!, subjects: subjects.map { log.subject($0) },
                expiresAt: expires.flatMap(RFC3339.milliseconds), name: name, actor: actor ?? AccessOptions.operatingSystemUser,
                at: log.now)
            let sink = try output.sink()
            if output.format == .text {
                sink.write(secret + "\n")
                Console.err("token id \(token.id.uuidString.lowercased()) (\(token.scope.rawValue)); keep the token: it is not shown again\n")
            } else {
                try sink.writeRecord(TokenRow(token: token, secret: secret), format: output.format)
            }
            try sink.close()
        }
    }
}

struct TokensListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the access tokens that stand (with --all, revoked and expired ones too), in the order made."
    )

    @OptionGroup var storeOptions: StoreOptions

    @Flag(name: .customLong("all"), help: "Also list tokens that were revoked or have expired.")
    var all = false

    @OptionGroup var output: OutputOptions<ListFormats>

    func run() async throws {
        try await reportingFailures {
            let log = try storeOptions.openLog()
            let now = log.now
            let tokens = try AccessTokens(log: log).all().filter { all || $0.isValid(at: now) }
            let sink = try output.sink()
            var writer = RowWriter<TokenRow>(format: output.format, sink: sink)
            for token in tokens { try writer.write(TokenRow(token: token, now: now)) }
            try writer.finish()
            try sink.close()
        }
    }
}

struct TokensRevokeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Revoke an access token: a running server refuses it within a second.",
        discussion: "Takes the token's id (from `tokens create` or `tokens list`), or the token itself."
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The token's id, or the token (sst_…).", valueName: "token-id"))
    var token: String

    @Option(help: ArgumentHelp("Who revokes the token, for the audit trail. Default: the operating-system user.", valueName: "name"))
    var actor: String?

    @OptionGroup var output: OutputOptions<RecordFormats>

    func run() async throws {
        try await reportingFailures {
            guard let id = UUID(uuidString: token) ?? AccessTokens.id(of: token) else {
                throw CommandFailure(.usage, "\(token) is neither a token id nor a token (sst_…)")
            }
            let log = try storeOptions.openLog()
            let now = log.now
            let revoked = try await AccessTokens(log: log).revoke(id, actor: actor ?? AccessOptions.operatingSystemUser, at: now)
            let sink = try output.sink()
            try sink.writeRecord(TokenRow(token: revoked, now: now), format: output.format)
            try sink.close()
        }
    }
}
