import Audio
import Compliance
import EventLog
import Exports
import Foundation
import HexCoding
import Hummingbird
import Migrations
import Output
import OutputRows
import Projections
import Reports
import SessionLog
import SessionModel

/// A session's content in the forms `export`, `audio` and `report` write, and `audit check`:
/// `GET /v1/sessions/{id}/export`, `/audio`, `/report`, `GET /v1/export` (several sessions, a subject's or
/// all), `/v1/audit/check`. Exports are streamed.
struct ContentRoutes {
    let reader: StoreReader
    /// The recordings last encoded, for the ranges a player asks for one after another.
    let audioCache = EncodedAudioCache()

    func add(to router: RouterGroup<ServerContext>) {
        router.get("sessions/:session/export") { request, context in try await export(request, context) }
        router.get("export") { request, context in try await exportMany(request, context) }
        router.get("sessions/:session/audio") { request, context in try await audio(request, context) }
        router.get("sessions/:session/report") { request, context in try await report(request, context) }
        router.get("audit/check") { request, context in try await auditCheck(request, context) }
    }

    /// The session as `export --format F` writes it, streamed; recorded as an export (export.performed) first.
    private func export(_ request: Request, _ context: ServerContext) async throws -> Response {
        let token = try context.require(.read)
        let asked = try ExportRequest(request.form)
        let (_, summary) = try await reader.readableSummary(context, token)
        return try await streamedExport(of: [summary], asked, request, token, name: Hex.uuid(summary.session))
    }

    /// Several sessions in one export, streamed: those named (`session=ID`, repeatable), those of
    /// `subject=` (a raw id or a subject hash) and, with `all=true`, every one: together, each narrowed to
    /// the sessions the token may read. Nothing selected is answered 404, as a subject without sessions is.
    private func exportMany(_ request: Request, _ context: ServerContext) async throws -> Response {
        let token = try context.require(.read)
        let query = request.form
        let asked = try ExportRequest(query)
        guard asked.format == .json || asked.format == .csv else {
            throw Problem.badRequest("format \(asked.format.rawValue) is one session's file, which this route does not write: "
                                     + "export each session from /v1/sessions/{id}/export?format=\(asked.format.rawValue), or choose json or csv")
        }
        let named = try query.getAll("session").map(SessionName.parsing)
        let subject = try query.text("subject").map(reader.subject)
        let all = try query.boolean("all") ?? false
        let readable = token.subjects.isEmpty ? nil : token.subjects
        var sessions: [SessionSummary] = []
        if all || subject != nil {
            sessions = try await reader.sessions(.all(of: all ? nil : subject, readableSubjects: readable)).sessions
        }
        var chosen = Set(sessions.map(\.session))
        for name in named {
            let (id, summary) = try await reader.readableSummary(name, token)
            if chosen.insert(id).inserted { sessions.append(summary) }
        }
        guard !sessions.isEmpty else {
            throw Problem.notFound(named.isEmpty && subject == nil && !all
                ? "nothing to export: name sessions (session=ID), a subject (subject=) or all=true"
                : "the store has no session to export that this token may read")
        }
        let onlyTheSubject = all || !named.isEmpty ? nil : subject  // the export of a person's sessions names them
        return try await streamedExport(of: sessions, asked, request, token, name: onlyTheSubject == nil ? "sessions" : "subject",
                                        subject: onlyTheSubject)
    }

    /// Records the export, then streams it.
    private func streamedExport(of sessions: [SessionSummary], _ asked: ExportRequest, _ request: Request, _ token: Principal,
                                name: String, subject: SubjectHash? = nil) async throws -> Response {
        let format = asked.format
        let access = try reader.access(token, request)
        let (log, runner) = (reader.log, try await reader.upToDate())
        let ids = sessions.map(\.session)
        let type = switch format {
        case .json: "application/json"
        case .csv: "text/csv; charset=utf-8"
        case .vtt: "text/vtt; charset=utf-8"
        case .srt: "application/x-subrip; charset=utf-8"
        }
        let headers: HTTPFields = [.contentType: type, .contentDisposition: "attachment; filename=\"\(name).\(format.fileExtension)\""]
        let options = asked.options
        return try await access.read(.export(format: format.rawValue, subject: subject), of: ids) {
            StreamedBody.response(headers: headers) { sink in
                try Exporter(log: log, upToDate: runner, sessions: sessions).export(ids, as: format, options: options, to: sink)
            }
        }
    }

    /// A recording as WAV or FLAC, whole or the byte range asked for (RFC 9110 §14), so that a browser's
    /// audio element can seek.
    private func audio(_ request: Request, _ context: ServerContext) async throws -> Response {
        let token = try context.require(.read)
        let (id, summary) = try await reader.readableSummary(context, token)
        let query = request.form
        let container = try query.choice("format", AudioFile.Container.self) ?? .wav
        let name = container.rawValue
        let recording = try query.text("recording")
        guard !summary.isShredded else {
            audioCache.forget(id)
            throw Problem.notFound("session \(Hex.uuid(id)) was \(summary.status.rawValue): its audio cannot be read")
        }
        let version = try SessionProgress.version(of: id, in: reader.log)
        let key = EncodedAudioCache.Key(session: id, recording: recording, container: name, version: version)
        let (log, cache, range) = (reader.log, audioCache, request.headers[.range])
        // Recorded once per request that starts at the beginning, not for every range a player asks for next.
        let bytes = try await reader.access(token, request).read(.audio, {
            if let cached = cache.bytes(key) { return cached }
            let bytes = try await onThreadOfItsOwn { try RecordingExport.file(of: id, recording: recording, as: container, from: log).bytes }
            cache.keep(bytes, for: key)
            return bytes
        }, sessions: { bytes in RangeRequest(range, length: bytes.count).map({ $0.range?.lowerBound == 0 }) ?? true ? [id] : [] })
        return RangeRequest.answer(bytes, type: container == .wav ? "audio/wav" : "audio/flac", rangeHeader: request.headers[.range])
    }

    /// The session's HTML report, as `report` writes it (audio embedded unless `audio=false`).
    private func report(_ request: Request, _ context: ServerContext) async throws -> Response {
        let token = try context.require(.read)
        let id = try await reader.readableSession(context, token)
        let query = request.form
        let options = SessionReport.Options(includeAudio: try query.boolean("audio") ?? true, redact: try query.boolean("redact") ?? false)
        let (log, runs) = (reader.log, try await reader.sessionList().runs(of: id))
        let report = try await reader.access(token, request).read(.report, of: [id]) {
            try await onThreadOfItsOwn { try await SessionReport.make(id, from: log, options: options, listedRuns: runs) }
        }
        return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: SessionReportHTML.render(report))))
    }

    /// What `audit check --format json` prints: every violation of the consent and retention rules.
    private func auditCheck(_ request: Request, _ context: ServerContext) async throws -> Response {
        try context.require(.audit)
        let asOf = try request.form.time("as_of")
        let log = reader.log
        let report = try await onThreadOfItsOwn { try ViolationCheck(log: log).run(asOf: asOf) }
        let sink = OutputSink.memory()
        var writer = RowWriter<ViolationRow>(format: .json, sink: sink)
        for violation in report.violations { try writer.write(ViolationRow(violation: violation)) }
        try writer.finish()
        return .json(sink.collected)
    }
}

/// A `Range: bytes=…` header of one range (several ranges are answered whole, as RFC 9110 allows).
struct RangeRequest {
    /// The bytes asked for; nil when the range starts past the end (unsatisfiable).
    let range: Range<Int>?

    /// Nil without a header, or for one this server answers with the whole body (several ranges, or one
    /// it cannot read). Any numbers are safe: a range is clamped to the body, never trusted.
    init?(_ header: String?, length: Int) {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let spec = header.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard spec.count == 2 else { return nil }
        let first = Int(spec[0].trimmingCharacters(in: .whitespaces)), last = Int(spec[1].trimmingCharacters(in: .whitespaces))
        switch (first, last) {
        case let (first?, last?) where first >= 0 && first <= last:
            range = first < length ? first..<(min(last, length - 1) + 1) : nil
        case let (first?, nil) where first >= 0 && spec[1].isEmpty:
            range = first < length ? first..<length : nil
        case let (nil, suffix?) where spec[0].isEmpty && suffix > 0:
            range = length > 0 ? max(0, length - suffix)..<length : nil
        default:
            return nil
        }
    }

    /// 200 with the whole body, 206 with the range asked for, or 416 for one that starts past the end.
    static func answer(_ bytes: [UInt8], type: String, rangeHeader: String?) -> Response {
        var headers: HTTPFields = [.contentType: type, .acceptRanges: "bytes"]
        guard let request = RangeRequest(rangeHeader, length: bytes.count) else {
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        guard let range = request.range else {
            headers[.contentRange] = "bytes */\(bytes.count)"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        }
        headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(bytes.count)"
        return Response(status: .partialContent, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes[range])))
    }
}

/// What an export request asks for besides its sessions and the purpose (``StoreReader/access(_:_:)``): the format and its options.
struct ExportRequest {
    var format: ExportFormat
    var options: ExportOptions

    init(_ query: FormFields) throws {
        format = try query.choice("format", ExportFormat.self) ?? .json
        options = ExportOptions(partials: try query.boolean("partials") ?? false, excel: try query.boolean("excel") ?? false,
                                redact: try query.boolean("redact") ?? false)
    }
}
