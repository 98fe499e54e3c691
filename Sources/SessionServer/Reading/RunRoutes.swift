import Foundation
import Hummingbird
import Output
import OutputRows
import Replay

/// Versions of a system under test against each other, by their runs' labels (docs/REPLAY.md):
/// `GET /v1/runs`, each label's word error rate and latency in the order the labels ran (`sessionstore
/// runs`), and `GET /v1/compare?baseline=A&candidate=B` (`sessionstore compare --baseline A --candidate B`).
/// Scope read, by a token not limited to subjects; the sessions read are recorded in the access log.
struct RunRoutes {
    let reader: StoreReader

    func add(to router: RouterGroup<ServerContext>) {
        router.get("runs") { request, context in
            let token = try Self.unlimitedReader(context)
            let log = reader.log
            let trend = try await reader.access(token, request).read(.runs, {
                try await onThreadOfItsOwn { try await LabelTrend.load(from: log) }
            }, sessions: \.sessionsRead)
            return Response.json(LabelTrendDocument(labels: trend.entries.map(LabelTrendRow.init)).json)
        }
        router.get("compare") { request, context in
            let token = try Self.unlimitedReader(context)
            let query = request.form
            guard let baseline = try query.text("baseline"), let candidate = try query.text("candidate") else {
                throw Problem.badRequest("give baseline and candidate: the labels of the two versions' runs")
            }
            let options = try Self.options(query)
            let log = reader.log
            let comparison = try await reader.access(token, request).read(.compare, {
                try await onThreadOfItsOwn { try await LabelComparison.load(baseline: baseline, candidate: candidate, from: log, options: options) }
            }, sessions: \.sessionsRead)
            return Response.json(LabelComparisonDocument(comparison: comparison).json)
        }
    }

    /// A reader of every session: a comparison reads the transcripts of everyone's sessions that were driven.
    static func unlimitedReader(_ context: ServerContext) throws -> Principal {
        let token = try context.require(.read)
        guard token.subjects.isEmpty else {
            throw Problem(.forbidden, detail: "a token limited to subjects cannot compare runs over every session")
        }
        return token
    }

    /// The comparison's options from the query: `max_worse`, `confidence`, `resamples`, `seed`.
    private static func options(_ query: FormFields) throws -> LabelComparison.Options {
        var options = LabelComparison.Options()
        if let text = try query.single("max_worse") { options.maxWorse = try number(text, "max_worse") }
        if let text = try query.single("confidence") { options.confidence = try number(text, "confidence") }
        if let text = try query.single("resamples") {
            guard let resamples = Int(text) else { throw Problem.badRequest("resamples \"\(text)\" is not a whole number") }
            options.resamples = resamples
        }
        if let text = try query.single("seed") { options.seed = try Problem.position(text, "seed") }
        try options.validate { $0.replacingOccurrences(of: "-", with: "_") }  // a 400 by its error's kind
        return options
    }

    private static func number(_ text: String, _ name: String) throws -> Double {
        guard let value = Double(text), value.isFinite else { throw Problem.badRequest("\(name) \"\(text)\" is not a number") }
        return value
    }
}

/// `{"labels": [...]}`, each a ``LabelTrendRow``, by their first drive.
private struct LabelTrendDocument: OutputRow {
    static let columns = ["labels"]
    var labels: [LabelTrendRow]

    func write(to fields: inout Fields) {
        fields.field("labels", rows: labels)
    }
}
