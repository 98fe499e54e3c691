import Compliance
import EventLog
import Exports
import Foundation
import HexCoding
import Hummingbird
import Output
import Projections
import Replay
import Reports
import SessionLog
import SessionModel
import TimeCoding

/// The console's pages: each reads what the API's routes read (the same scopes, the same access log)
/// and renders it through ``ConsoleTemplates``.
struct ConsoleViews {
    let reader: StoreReader
    let state: ConsoleState

    static let pageSize = 50

    // MARK: Sessions

    func sessions(_ request: Request, _ context: ServerContext) async throws -> Response {
        let token = try context.require(.read, .audit)
        let parameters = request.form.withoutEmptyValues()  // a filter form's unfilled fields
        var query = try SessionRoutes.query(parameters, for: token, reader: reader)
        if parameters.nonEmpty("limit") == nil { query.limit = Self.pageSize }
        if parameters.nonEmpty("order") == nil { query.descending = true }  // newest first, unless asked otherwise
        let page = try await reader.sessions(query)
        let audit = state.lastAudit
        var filters: [String: String] = [:]
        for name in ["q", "subject", "label", "status", "runs", "sort", "order", "limit", "started_after", "started_before"] {
            if let value = parameters.nonEmpty(name) { filters[name] = value }
        }
        func url(_ extra: [String: String]) -> String {
            let query = (try? URLEncodedFormEncoder().encode(filters.merging(extra) { $1 })) ?? ""
            return "/ui/sessions" + (query.isEmpty ? "" : "?" + query)
        }
        let rows = page.sessions.map { summary in
            SessionListRow(summary, violations: audit.map { $0.violationsBySession[summary.session] ?? 0 },
                           runs: reader.catalog.runCount(of: summary.session))
        }
        let model = SessionsPage(
            actor: token.actor, q: filters["q"] ?? "", subject: filters["subject"] ?? "", label: filters["label"] ?? "",
            statuses: SessionSummary.Status.allCases.map { Choice(value: $0.rawValue, label: $0.rawValue, selected: query.status == $0) },
            kinds: [Choice(value: "", label: "sessions and runs", selected: query.runs == nil),
                    Choice(value: "false", label: "recorded sessions", selected: query.runs == false),
                    Choice(value: "true", label: "runs (replays)", selected: query.runs == true)],
            sorts: [Choice(value: "started", label: "start time", selected: query.sort == .started),
                    Choice(value: "duration", label: "duration", selected: query.sort == .duration),
                    Choice(value: "words", label: "words", selected: query.sort == .words)],
            orders: [Choice(value: "desc", label: "descending", selected: query.descending),
                     Choice(value: "asc", label: "ascending", selected: !query.descending)],
            rows: rows, matching: page.matching, matchingNoun: page.matching == 1 ? "session matches" : "sessions match",
            violationsAsOf: audit.map { RFC3339.string($0.ranAt) },
            firstURL: parameters.nonEmpty("after") == nil ? nil : url([:]),
            nextURL: page.next.map { url(["after": $0.description]) })
        return WebConsole.page("sessions", model)
    }

    // MARK: A session

    func session(_ request: Request, _ context: ServerContext) async throws -> Response {
        let token = try context.require(.read)
        let (id, summary) = try await reader.readableSummary(context, token)
        let (log, listed) = (reader.log, reader.catalog.runs(of: id))
        // Each run against this session, and this session against its source when it is a run: loaded and aligned
        // off the threads every request shares, like the report. Every session whose transcript the page shows is recorded.
        let runs = summary.isShredded ? [] : listed.filter { token.mayRead(sessionOf: $0.subject) && !$0.isShredded }
        let source = summary.runOf.flatMap { source -> UUID? in
            guard !summary.isShredded, let row = reader.catalog.row(of: source), !row.isShredded, token.mayRead(sessionOf: row.subject) else {
                return nil
            }
            return source
        }
        let read = [id] + runs.map(\.session) + (source.map { [$0] } ?? [])
        let (report, comparedRuns, sourceComparison) = try await reader.access(token, request).read(.console, of: read) {
            try await onThreadOfItsOwn {
                let report = try await SessionReport.make(id, from: log, options: SessionReport.Options(includeAudio: false), listedRuns: listed)
                var comparedRuns: [(SessionSummary, TranscriptComparison)] = []
                if !runs.isEmpty {
                    let timeline = try await TranscriptTimeline.load(id, from: log)
                    for run in runs {
                        comparedRuns.append((run, TranscriptComparison(source: timeline, run: try await TranscriptTimeline.load(run.session, from: log))))
                    }
                }
                var comparison: TranscriptComparison?
                if let source {
                    comparison = TranscriptComparison(source: try await TranscriptTimeline.load(source, from: log),
                                                      run: try await TranscriptTimeline.load(id, from: log))
                }
                return (report, comparedRuns, comparison)
            }
        }
        let runRows = comparedRuns.map { RunRow($0.0, comparison: $0.1) }
        let comparison = sourceComparison.map(ComparisonView.init)
        let hasAudio = !summary.recordings.isEmpty && !summary.isShredded
        let base = "/v1/sessions/\(Hex.uuid(id))"
        var downloads = ExportFormat.allCases.map { Download(name: $0.rawValue.uppercased(), url: "\(base)/export?format=\($0.rawValue)") }
        if hasAudio { downloads += [Download(name: "WAV", url: "\(base)/audio"), Download(name: "FLAC", url: "\(base)/audio?format=flac")] }
        downloads.append(Download(name: "report", url: "\(base)/report"))
        let drawing = SessionReportHTML.timelineDrawing(report)
        let how = summary.status == .erased ? "erased at the person's request" : "purged by the retention policy"
        let model = SessionPage(
            actor: token.actor, sessionsPage: true, id: Hex.uuid(id), shortID: String(Hex.uuid(id).prefix(8)),
            notice: summary.isShredded ? "This session was \(how): its transcript and audio cannot be read by any means. Its consent trail remains." : nil,
            status: summary.status.rawValue, subject: summary.subject?.description, locale: summary.locale ?? "—",
            started: summary.startedAt.map(RFC3339.string) ?? "—", ended: summary.endedAt.map(RFC3339.string) ?? "—",
            duration: summary.durationMilliseconds.map(Self.clock) ?? "—", words: summary.words,
            violations: report.violations.isEmpty ? "none" : "\(report.violations.count)",
            violationsClass: report.violations.isEmpty ? "good" : "bad",
            runOf: summary.runOf.map(Hex.uuid), label: summary.runLabel, downloads: downloads,
            timeline: drawing.svg, legend: drawing.legend, audioURL: hasAudio ? "\(base)/audio" : nil,
            transcript: SessionReportHTML.transcriptSection(report), findings: SessionReportHTML.findingsSection(report),
            hasRuns: !runRows.isEmpty, runs: runRows, comparison: comparison)
        return WebConsole.page("session", model)
    }

    // MARK: A subject

    func subject(_ request: Request, _ context: ServerContext) async throws -> Response {
        let token = try context.require(.read, .audit)
        let subject = try readableSubject(context, token)
        let runner = try await reader.upToDate()
        let trail = try runner.consentTrail(of: subject)
        let sessions = try await subjectSessions(subject)
        guard !trail.entries.isEmpty || !sessions.isEmpty else { throw Problem.notFound("the store has nothing of this subject") }
        let ids = Set(sessions.map(\.session))
        let holds = try LegalHolds(log: reader.log).open().filter { $0.subject == subject || !ids.isDisjoint(with: $0.sessions) }
        let model = SubjectPage(
            actor: token.actor, hash: subject.description, short: String(subject.description.prefix(12)),
            consent: trail.entries.map(ConsentLine.init),
            sessions: sessions.map { SubjectSessionLine(id: Hex.uuid($0.session), status: $0.status.rawValue,
                                                        started: $0.startedAt.map(RFC3339.string) ?? "—") },
            holds: holds.map { HoldLine(description: $0.description) })
        return WebConsole.page("subject", model)
    }

    /// The subject's bundle, as the API's route answers it.
    func bundle(_ request: Request, _ context: ServerContext) async throws -> Response {
        let token = try context.require(.read)
        return try await SubjectRoutes.bundle(of: try readableSubject(context, token), for: token, request: request, reader: reader)
    }

    /// The erasure's confirmation page (`form` nil), or the erasure when the form confirms it: the
    /// confirmation must repeat the words the page names, else nothing is erased.
    func erasure(_ request: Request, _ context: ServerContext, form: EraseForm?) async throws -> Response {
        let token = try context.require(.admin)
        let subject = try readableSubject(context, token)
        let sessions = try await subjectSessions(subject)
        let doomed = sessions.filter { !$0.isShredded }
        let confirmation = "erase \(subject.description.prefix(8))"
        var model = ErasePage(actor: token.actor, hash: subject.description, short: String(subject.description.prefix(12)),
                              sessions: doomed.map(DoomedSession.init), count: doomed.count, confirmation: confirmation)
        guard !doomed.isEmpty else {
            model.done = "Nothing is left to erase: every session of this subject was erased or purged already."
            return WebConsole.page("erase", model)
        }
        guard let form else { return WebConsole.page("erase", model) }
        guard form.confirm?.trimmingCharacters(in: .whitespaces).lowercased() == confirmation else {
            model.refusal = "Nothing was erased: to confirm, type “\(confirmation)” exactly."
            return WebConsole.page("erase", model, status: .unprocessableContent)
        }
        let reference = form.reference.flatMap { $0.isEmpty ? nil : $0 } ?? "web console, \(token.actor)"
        do {
            let report = try await SubjectErasure(log: reader.log).erase(subject, reference: reference, at: reader.log.now)
            _ = try await reader.upToDate()
            model.done = "Erased \(report.erased.count) sessions: their keys are destroyed (subject.erased at log position \(report.eventPosition.map(String.init) ?? "—")). "
                + "Stop the server and run `sessionstore compact` so that no old copy of a key stays in the store's free pages."
            return WebConsole.page("erase", model)
        } catch let error as ComplianceError where error.code == .held {
            model.refusal = error.message
            return WebConsole.page("erase", model, status: .conflict)
        }
    }

    // MARK: Integrity

    func integrity(_ context: ServerContext) async throws -> Response {
        let token = try context.require(.audit)
        let tree = try reader.log.treeHead()
        let latest = try IntegrityEvidence(log: reader.log).latest()
        let model = IntegrityPage(
            actor: token.actor, integrityPage: true,
            verification: latest.verifications.first.map(VerificationLine.init),
            earlier: latest.verifications.dropFirst().map(VerificationLine.init), hasEarlier: latest.verifications.count > 1,
            audit: state.lastAudit.map { AuditLine(violations: $0.violations, sessions: $0.violationsBySession.count, ranAt: RFC3339.string($0.ranAt)) },
            size: tree.size, root: Hex.string(tree.rootHash),
            handedOut: !latest.checkpoints.isEmpty, checkpoints: latest.checkpoints.map(CheckpointLine.init))
        return WebConsole.page("integrity", model)
    }

    /// Verifies the whole store (as `verify` does), records it, and shows the result.
    func verify(_ context: ServerContext) async throws -> Response {
        let token = try context.require(.audit)
        _ = try await IntegrityRoutes.verify(reader.log, by: token.actor)
        return Response.redirect(to: "/ui/integrity", type: .normal)
    }

    /// Checks the consent and retention rules over the whole log (`audit check`); the session list then
    /// shows each session's violations.
    func audit(_ context: ServerContext) async throws -> Response {
        try context.require(.audit)
        let log = reader.log
        let report = try await onThreadOfItsOwn { try ViolationCheck(log: log).run() }
        var bySession: [UUID: Int] = [:]
        for violation in report.violations { bySession[violation.session, default: 0] += 1 }
        state.lastAudit = ConsoleState.AuditCheck(violationsBySession: bySession, violations: report.violations.count, ranAt: reader.log.now)
        return Response.redirect(to: "/ui/integrity", type: .normal)
    }

    /// The proof forms' answer: the tlog-proof routes', for a log position, or a session and event, typed in.
    func proof(_ request: Request, _ context: ServerContext) async throws -> Response {
        try context.require(.audit)
        let parameters = request.form
        if let position = parameters.nonEmpty("position") {
            guard let number = UInt64(position.trimmingCharacters(in: .whitespaces)) else { throw Problem.badRequest("\(position) is not a log position") }
            return Response.redirect(to: "/v1/records/\(number)/proof", type: .normal)
        }
        // The proof route resolves the session as every route does (an id or a unique prefix).
        let session = try SessionName.parsing(parameters.nonEmpty("session")?.trimmingCharacters(in: .whitespaces) ?? "")
        let event = parameters.nonEmpty("event")?.trimmingCharacters(in: .whitespaces) ?? "0"
        guard UInt64(event) != nil else { throw Problem.badRequest("\(event) is not an event number") }
        return Response.redirect(to: "/v1/sessions/\(session)/proofs/\(event)", type: .normal)
    }

    // MARK: Live

    func live(_ context: ServerContext) async throws -> Response {
        let token = try context.require(.read)
        let count = try reader.log.eventCount()
        return WebConsole.page("live", LivePage(actor: token.actor, livePage: true, after: count == 0 ? "" : String(count - 1),
                                                types: EventType.allCases.map(\.rawValue).joined(separator: " ")))
    }

    // MARK: Helpers

    private func readableSubject(_ context: ServerContext, _ token: Principal) throws -> SubjectHash {
        let subject = reader.subject(try context.parameters.require("subject"))
        guard token.mayRead(sessionOf: subject) else { throw Problem.notFound("the store has nothing of this subject that this token may read") }
        return subject
    }

    private func subjectSessions(_ subject: SubjectHash) async throws -> [SessionSummary] {
        try await reader.sessions(.all(of: subject)).sessions
    }

    /// `m:ss`, or `h:mm:ss` from an hour on.
    static func clock(_ milliseconds: Int64) -> String {
        let seconds = milliseconds / 1000
        let (hours, minutes, rest) = (seconds / 3600, seconds / 60 % 60, seconds % 60)
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%d:%02d", minutes, rest)
    }

    static func percent(_ rate: Double) -> String { String(format: "%.1f%%", rate * 100) }
}
