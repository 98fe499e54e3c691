#if Server
import ArgumentParser
import Compliance
import EventLog
import Failures
import Foundation
import Output
import Projections
import SessionLog
import SessionPush
import SessionStoreClient
import Synchronization

struct PushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Send this store's sessions to a SessionStore server, resumably.",
        discussion: """
            Sends each session through the client library (docs/CLIENT.md, "Pushing a store"): its events go into an \
            encrypted outbox beside the store and from there over the server's live WebSocket, each from where the \
            server stands, so nothing the server holds is sent again and a push killed at any point goes on where it \
            stopped when run again. The server ends up with the same sessions, events and audio; positions and \
            recorded-at times are its own. --all pushes every session that is not a run and not erased.

            Subjects go as this store's subject hashes, which the server takes only if it hashes subjects with the \
            same key: create this store with init --subject-key FILE, FILE written by keys export-subject-key on \
            the server. Erasing the person on the server then reaches the pushed sessions.

            The token (scope ingest) is read from the environment variable --token-env names. The push is \
            recorded in this store's access log as an export (export push). Exits 0 once the server holds every \
            event, 65 when it refused one (the session stops there), 69 when it cannot be reached in --timeout, \
            77 when it refuses the token.

            Example: SESSIONSTORE_TOKEN=… sessionstore push --to https://sessions.example.com --all
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .customLong("to"), help: ArgumentHelp("The server's base URL (http or https).", valueName: "url"))
    var server: String

    @Argument(help: ArgumentHelp("The sessions to push (ids, or unique prefixes of 8 or more hex digits).", valueName: "session"))
    var sessions: [String] = []

    @Flag(help: "Push every session that is not a run and not erased.")
    var all = false

    @Option(help: ArgumentHelp("The environment variable holding the server's token.", valueName: "variable"))
    var tokenEnv = "SESSIONSTORE_TOKEN"

    @Option(help: ArgumentHelp("The push's outbox directory. Default: beside a directory store, <store>.push/<host>-<port>.", valueName: "path"))
    var outbox: String?

    @Option(help: ArgumentHelp("Seconds to wait for the server to store everything.", valueName: "seconds"))
    var timeout: Double = 600

    @OptionGroup var access: AccessOptions

    func validate() throws {
        if all, !sessions.isEmpty { throw ValidationError("give sessions or --all, not both") }
        if !all, sessions.isEmpty { throw ValidationError("give the sessions to push, or --all") }
        guard timeout > 0, timeout.isFinite else { throw ValidationError("--timeout must be a positive number of seconds") }
    }

    func run() async throws {
        try await reportingFailures {
            guard let url = URL(string: server), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host else {
                throw CommandFailure(.usage, "--to \(server) is not an http or https URL with a host")
            }
            guard let token = Console.variable(tokenEnv), !token.isEmpty else {
                throw CommandFailure(.usage, "the environment variable \(tokenEnv) (--token-env) holding the server's token is not set or empty")
            }
            let log = try storeOptions.openLog()
            let ids = try chosenSessions(log)
            let directory = try outboxDirectory(host: host, port: url.port ?? (scheme == "https" ? 443 : 80))
            let refused = RefusalFlag()
            let client = try SessionStoreClient(server: url, outbox: OutboxConfiguration(directory: directory, key: try OutboxKey(bytes: log.pushOutboxKey))) { rejected in
                guard rejected == nil else {
                    refused.raise()
                    throw ClientError(.tokenRefused, "the server at \(server) refused the token in $\(tokenEnv) (401)")
                }
                return token
            }
            let deadline = ContinuousClock.now + .seconds(timeout)
            let pusher = SessionPusher(log: log, client: client, deadline: deadline)
            let queued: [SessionPusher.Queued], failed: [(UUID, PushError)]
            do {
                (queued, failed) = try await access.open(log).read(.export(format: "push", subject: nil), of: ids) {
                    var queued: [SessionPusher.Queued] = [], failed: [(UUID, PushError)] = []
                    for id in ids {
                        do { queued.append(try await pusher.queue(id)) } catch let error as PushError { failed.append((id, error)) }
                    }
                    try await drain(client, refused: refused, deadline: deadline)
                    return (queued, failed)
                }
            } catch {
                await client.close()  // what is not acknowledged stays in the outbox for the next push
                throw error
            }
            await client.close()
            try report(queued, failed: failed, client: client, to: url)
        }
    }

    /// The sessions named, or with --all every one that is not a run and not erased, by start time.
    private func chosenSessions(_ log: EventLog) throws -> [UUID] {
        guard all else { return try sessions.map { try SessionLookup.existing($0, in: log) } }
        let runner = ProjectionRunner(log: log)
        try runner.catchUp()
        return try runner.sessions().filter { $0.runOf == nil && !$0.isShredded }.sortedByStart().map(\.session)
    }

    private func outboxDirectory(host: String, port: Int) throws -> URL {
        if let outbox { return URL(fileURLWithPath: outbox) }
        guard !storeOptions.store.contains("://") else {
            throw CommandFailure(.usage, "a store in a database has no directory to keep the push's outbox beside; give --outbox")
        }
        return URL(fileURLWithPath: storeOptions.store + ".push").appendingPathComponent("\(host)-\(port)")
    }

    /// Waits until the server holds every event sent (or refused one), failing at once when it refuses the token.
    private func drain(_ client: SessionStoreClient, refused: RefusalFlag, deadline: ContinuousClock.Instant) async throws {
        while true {
            if refused.isRaised {
                throw CommandFailure(.key, "the server at \(server) refused the token in $\(tokenEnv) (401); nothing more was sent")
            }
            do {
                return try await client.flush(timeout: min(.milliseconds(250), deadline - ContinuousClock.now))
            } catch ClientError.Code.flushTimedOut where ContinuousClock.now < deadline {
                continue
            } catch ClientError.Code.flushTimedOut {
                let status = client.status
                throw CommandFailure(.unavailable, "the server at \(server) did not store everything within \(timeout) s: \(status.outboxEvents) events "
                                     + "(\(status.outboxBytes) bytes) wait in the outbox; run the same push again to go on")
            }
        }
    }

    private func report(_ queued: [SessionPusher.Queued], failed: [(UUID, PushError)], client: SessionStoreClient, to url: URL) throws {
        var refusals = failed.map(\.1.message)
        for (session, error) in failed { Console.line("\(session.uuidString.lowercased()): not sent: \(error.message)") }
        for item in queued {
            let id = item.session.uuidString.lowercased()
            if let problem = client.refusal(of: item.session) {
                let sentence = SessionPusher.sentence(ofProblem: problem)
                refusals.append("session \(id): \(sentence)")
                Console.line("\(id): refused by the server: \(sentence)")
            } else {
                Console.line("\(id): \(item.queued) events sent, \(item.alreadyThere) sent before"
                             + (item.storesOwn > 0 ? ", \(item.storesOwn) of this store's own kept here" : ""))
            }
        }
        let sent = queued.reduce(0) { $0 + $1.queued }
        guard refusals.isEmpty else {
            throw CommandFailure(.invalidData, "the server at \(url.absoluteString) did not take \(refusals.count) of \(queued.count + failed.count) sessions; "
                                 + refusals.joined(separator: "; "))
        }
        Console.line("pushed \(queued.count) \(queued.count == 1 ? "session" : "sessions") to \(url.absoluteString): \(sent) events sent; the server holds them all")
    }
}

/// Raised once, read from any task: the server refused the push's token.
private final class RefusalFlag: Sendable {
    private let raised = Atomic<Bool>(false)
    func raise() { raised.store(true, ordering: .relaxed) }
    var isRaised: Bool { raised.load(ordering: .relaxed) }
}
#else
import ArgumentParser

/// `push` in a build without the `Server` trait (it sends through the client's NIO WebSocket).
struct PushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Send this store's sessions to a server (not in this build: `swift build --product sessionstore` builds it).")

    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []

    func run() async throws {
        try await reportingFailures { throw CommandFailure.serverNotBuilt }
    }
}
#endif
