import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import Reports

/// The web console under `/ui` (docs/CONSOLE.md): server-rendered pages of the sessions, a session
/// with its recording and runs, a subject with their consent trail and the requests a data-protection
/// officer answers, the store's integrity, and the live tail. Every page stands on the same tokens as
/// the API: the login page takes one and keeps it in an HttpOnly, SameSite=Strict cookie, checked again
/// on every request (a revoked token logs its browser out within a second).
struct WebConsole {
    static let cookieName = "sessionstore_token"

    let reader: StoreReader
    let authenticator: Authenticator
    /// Cookies marked Secure: the server speaks TLS.
    let secureCookies: Bool
    let state: ConsoleState

    func add(to router: Router<ServerContext>) {
        router.get("ui") { _, _ in Response.redirect(to: "/ui/sessions", type: .normal) }
        router.get("ui/assets/console.css") { _, _ in Self.asset(ConsoleAssets.stylesheet, type: "text/css; charset=utf-8") }
        router.get("ui/assets/report.css") { _, _ in Self.asset(SessionReportHTML.partsStyle, type: "text/css; charset=utf-8") }
        router.get("ui/assets/console.js") { _, _ in Self.asset(ConsoleAssets.script, type: "text/javascript; charset=utf-8") }
        router.get("ui/login") { request, _ in
            Self.page("login", LoginPage(next: Self.safeNext(request.form.get("next")), error: nil))
        }
        router.post("ui/login") { request, context in try await login(request, context) }
        router.post("ui/logout") { request, _ in
            try ConsoleAuthentication.checkOrigin(request)
            var response = Response.redirect(to: "/ui/login", type: .normal)
            response.setCookie(Cookie(name: Self.cookieName, value: "", maxAge: 0, path: "/", secure: secureCookies, httpOnly: true, sameSite: .strict))
            return response
        }
        let pages = router.group("ui").add(middleware: ConsoleAuthentication(authenticator: authenticator))
        let views = ConsoleViews(reader: reader, state: state)
        pages.get("sessions") { request, context in try await views.sessions(request, context) }
        pages.get("sessions/:session") { request, context in try await views.session(request, context) }
        pages.get("subjects/:subject") { request, context in try await views.subject(request, context) }
        pages.get("subjects/:subject/bundle") { request, context in try await views.bundle(request, context) }
        pages.get("subjects/:subject/erase") { request, context in try await views.erasure(request, context, form: nil) }
        pages.post("subjects/:subject/erase") { request, context in
            try await views.erasure(request, context, form: try await Self.form(EraseForm.self, request))
        }
        pages.get("integrity") { _, context in try await views.integrity(context) }
        pages.post("integrity/verify") { _, context in try await views.verify(context) }
        pages.post("integrity/audit") { _, context in try await views.audit(context) }
        pages.get("integrity/proof") { request, context in try await views.proof(request, context) }
        pages.get("runs") { request, context in try await views.runs(request, context) }
        pages.get("live") { _, context in try await views.live(context) }
    }

    /// Checks the token; on success, sets the cookie and goes to the page asked for.
    private func login(_ request: Request, _ context: ServerContext) async throws -> Response {
        try ConsoleAuthentication.checkOrigin(request)
        let form = try await Self.form(LoginForm.self, request)
        let next = Self.safeNext(form.next)
        let token = form.token.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty, Self.fitsACookie(token), try await authenticator.principal(token) != nil else {
            return Self.page("login", LoginPage(next: next, error: "That token is not valid: it is unknown, revoked or expired."),
                             status: .unauthorized)
        }
        var response = Response.redirect(to: next, type: .normal)
        response.setCookie(Cookie(name: Self.cookieName, value: token, path: "/", secure: secureCookies, httpOnly: true, sameSite: .strict))
        return response
    }

    /// Whether `token` is made only of the characters a cookie's value may hold (RFC 6265): tokens of
    /// this store and JWTs are.
    static func fitsACookie(_ token: String) -> Bool {
        token.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: ",")
            && $0 != UInt8(ascii: ";") && $0 != UInt8(ascii: "\\") }
    }

    /// Where a login may lead: a console page of this server, never another site.
    static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/ui/"), !next.hasPrefix("//"), !next.contains("\\"), !next.contains("\r"), !next.contains("\n")
        else { return "/ui/sessions" }
        return next
    }

    static func form<Form: Decodable>(_ type: Form.Type, _ request: Request) async throws -> Form {
        let body = try await request.body.collect(upTo: 64 << 10)
        do {
            return try URLEncodedFormDecoder().decode(Form.self, from: String(buffer: body))
        } catch {
            throw Problem.badRequest("the form is not complete: \(error)")
        }
    }

    /// A page of the console, rendered from its template; pages are never cached, and may load only this
    /// server's resources.
    static func page(_ template: String, _ model: Any, status: HTTPResponse.Status = .ok) -> Response {
        let html = ConsoleTemplates.library.render(TemplateValues.of(model), withTemplate: template) ?? ""
        return Response(status: status, headers: pageHeaders(type: "text/html; charset=utf-8"), body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    static func pageHeaders(type: String) -> HTTPFields {
        var headers: HTTPFields = [.contentType: type, .cacheControl: "no-store"]
        headers[HTTPField.Name("Content-Security-Policy")!] =
            "default-src 'self'; img-src 'self' data:; media-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        return headers
    }

    private static func asset(_ text: String, type: String) -> Response {
        var headers = pageHeaders(type: type)
        headers[.cacheControl] = "max-age=300"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}

struct LoginForm: Decodable {
    var token: String
    var next: String?
}

struct EraseForm: Decodable {
    var confirm: String?
    var reference: String?
}

struct LoginPage {
    var next: String
    var error: String?
}
