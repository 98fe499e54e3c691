import Compliance
import EventLog
import Hummingbird

extension ReadAccess {
    /// The handle `request` reads session content through, as `token`'s actor, for the request's `purpose`: the
    /// store's access policy decides here (a refusal is a 400, as its error's kind says). A HEAD request, which
    /// gets no content, is decided but not recorded.
    init(_ token: Principal, _ request: Request, log: EventLog) throws {
        try self.init(log: log, actor: token.actor, purpose: try request.form.text("purpose"), deliversContent: request.method != .head)
    }
}
