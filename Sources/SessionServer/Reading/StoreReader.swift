import Compliance
import EventLog
import Foundation
import Hummingbird
import Projections
import SessionLog
import SessionModel

/// The store's views as the server reads them: brought up to date before a read (``ViewCatchUp``:
/// readers waiting together share one catch-up), then read. The session list is a copy in memory
/// (``SessionCatalog``) that folds new events without the store's write lock, so that its readers never
/// wait behind appends; the persisted views (transcripts, consent trails) are written by a catch-up.
/// After appends, both are brought up to date in the background (``committed()``): the list right after each
/// commit, so that a read of it mostly finds every event folded and waits for nothing.
struct StoreReader: Sendable {
    let log: EventLog
    /// The views as the last ``upToDate()`` left them.
    private let runner: ProjectionRunner
    /// The session list as the last ``sessionList()`` left it (runs of a session, for instance).
    let catalog: SessionCatalog
    private let views: ViewCatchUp
    private let list: ViewCatchUp

    init(log: EventLog) {
        self.log = log
        let runner = ProjectionRunner(log: log)
        let catalog = SessionCatalog()
        self.runner = runner
        self.catalog = catalog
        views = ViewCatchUp("persisted", refreshDelay: .seconds(1)) { try runner.catchUp() }
        list = ViewCatchUp("session-list", refreshDelay: .zero) { try catalog.catchUp(with: runner) }
    }

    /// The views and the session list, with every event committed before this call folded in.
    func upToDate() async throws -> ProjectionRunner {
        try await views.upToDate()
        _ = try await sessionList()
        return runner
    }

    /// The session list, with every event committed before this call folded in: at once when the background
    /// catch-ups have folded them all, as they mostly have even while writers append; else after a catch-up.
    func sessionList() async throws -> SessionCatalog {
        if catalog.reflects(through: try log.eventCount()) { return catalog }
        try await list.upToDate()
        return catalog
    }

    /// A page of the session list, with every event committed before this call folded in.
    func sessions(_ query: SessionQuery) async throws -> SessionCatalogPage {
        try await sessionList().page(query)
    }

    /// Tells the views that events were appended: they catch up in the background soon.
    func committed() {
        list.refreshSoon()
        views.refreshSoon()
    }

    /// Stops the background catch-ups (before the store closes).
    func stop() {
        list.stop()
        views.stop()
    }

    /// The subject a raw user id or a 64-digit subject hash names.
    func subject(_ argument: String) -> SubjectHash {
        if argument.utf8.count == 64, let hash = SubjectHash(hex: argument.lowercased()) { return hash }
        return log.subject(argument)
    }

    /// The handle `request` reads session content of this store through (``ReadAccess/init(_:_:log:)``).
    func access(_ token: Principal, _ request: Request) throws -> ReadAccess {
        try ReadAccess(token, request, log: log)
    }

    /// The session the path names (its id, or a unique prefix of it: ``SessionName``) with its row, when it exists and
    /// the token may see it; otherwise a 404 either way (so that the answer tells nothing of sessions the token may
    /// not read).
    func readableSummary(_ context: ServerContext, _ token: Principal) async throws -> (UUID, SessionSummary) {
        try await readableSummary(try context.parameters.require("session", as: SessionName.self), token)
    }

    /// The session `name` names, with its row, among those `token` may read; a 404 for any other.
    func readableSummary(_ name: SessionName, _ token: Principal) async throws -> (UUID, SessionSummary) {
        let list = try await sessionList()
        let id = try SessionLookup.resolve(name, in: log) { list.row(of: $0).map { token.mayRead(sessionOf: $0.subject) } ?? false }
        guard let summary = list.row(of: id), token.mayRead(sessionOf: summary.subject) else {
            throw Problem.notFound("the store has no session \(id.uuidString.lowercased()) that this token may read")
        }
        return (id, summary)
    }

    func readableSession(_ context: ServerContext, _ token: Principal) async throws -> UUID {
        try await readableSummary(context, token).0
    }
}
