import Foundation
import Hummingbird
import Output
import Replay
import SessionLog
import SessionStoreTesting
import TimeCoding

/// `POST /v1/sessions/{id}/runs`: an app's transcript of a stored session, stored as a run of it with the
/// app's label (docs/APP-TESTING.md), so that the Runs page and `compare` judge app versions. Scope ingest;
/// a token limited to subjects reports runs of their sessions only. The run's id is the client's (`run`),
/// so a report sent again stores nothing twice: 201 when stored now, 200 when stored already.
struct ReportedRunRoute {
    let reader: StoreReader
    let appender: Appender

    /// A report's largest body: a transcript, not audio.
    static let maximumBodyBytes = 4 << 20

    func add(to router: RouterGroup<ServerContext>) {
        router.post("sessions/:session/runs") { request, context in
            let token = try context.require(.ingest)
            let name = try context.parameters.require("session", as: SessionName.self)
            let list = try await reader.sessionList()
            let source = try SessionLookup.resolve(name, in: reader.log) { list.row(of: $0).map { token.mayRead(sessionOf: $0.subject) } ?? false }
            guard let row = list.row(of: source), token.mayRead(sessionOf: row.subject) else {
                throw Problem.notFound("the store has no session \(source.uuidString.lowercased()) that this token may report a run of")
            }
            // Checked here as well as by the library (422), so that a well-formed report of the wrong session is the conflict it is.
            if row.runOf != nil {
                throw Problem(.notRunnable, detail: "session \(source.uuidString.lowercased()) is a run; report a run of the session it replayed")
            }
            if row.isShredded {
                throw Problem(.notRunnable, detail: "session \(source.uuidString.lowercased()) is \(row.status.rawValue); a run of it would have no subject")
            }
            let body = try await request.body.collect(upTo: Self.maximumBodyBytes)
            let run = try Self.report(Data(buffer: body), of: source)
            let report = try await appender.store(run)
            let answer = ReportedRunAnswer(run: run.run, source: source, label: run.label, appended: report.appended, duplicates: report.duplicates)
            return Response.json(answer.json, status: report.appended > 0 ? .created : .ok)
        }
    }

    /// The body (SessionStoreTesting's `RunReport`, as the apps send it) as a run of `source`; a 400 naming the field at fault.
    static func report(_ body: Data, of source: UUID) throws -> ReportedRun {
        let document: RunReport
        do {
            document = try JSONDecoder().decode(RunReport.self, from: body)
        } catch let error as DecodingError {
            throw Problem.badRequest("the body is not a run report (docs/APP-TESTING.md): \(Self.describe(error))")
        }
        let started = try Self.time(document.startedAt, "started_at")
        guard (0...Int(UInt32.max)).contains(document.durationMilliseconds) else {
            throw Problem.badRequest("duration_ms \(document.durationMilliseconds) is out of range; give 0 to \(UInt32.max)")
        }
        let reported = ReportedRun(run: document.run, source: source, label: document.label, system: document.system, segments: document.segments,
                                   startedAt: started, endedAt: started + Int64(document.durationMilliseconds))
        if let problem = reported.problem { throw Problem.badRequest(problem) }
        return reported
    }

    private static func time(_ text: String, _ field: String) throws -> Int64 {
        guard let milliseconds = RFC3339.milliseconds(text, anyOffset: true) else { throw Problem.badRequest("\(field) \"\(text)\" is not an RFC 3339 time") }
        return milliseconds
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context): "\(path(context.codingPath + [key])) is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context): "\(path(context.codingPath)) is not \(context.debugDescription.lowercased())"
        case .dataCorrupted(let context):
            context.codingPath.isEmpty ? "it is not JSON" : "\(path(context.codingPath)) is not valid (\(context.debugDescription.lowercased()))"
        @unknown default: "it is not valid"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined().trimmingPrefix(".").description
    }
}

/// `{"run", "source", "label", "appended", "duplicates"}`.
private struct ReportedRunAnswer: OutputRow {
    static let columns = ["run", "source", "label", "appended", "duplicates"]
    var run: UUID
    var source: UUID
    var label: String
    var appended: Int
    var duplicates: Int

    func write(to fields: inout Fields) {
        fields.field("run", id: run)
        fields.field("source", id: source)
        fields.field("label", label)
        fields.field("appended", appended)
        fields.field("duplicates", duplicates)
    }
}
