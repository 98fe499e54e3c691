import Foundation
import Hummingbird
import Output
import Replay
import Reports
import TimeCoding

extension ConsoleViews {
    /// The Runs page: what `GET /v1/runs` and `GET /v1/compare` answer, for people. Scope read, by a token
    /// not limited to subjects (a comparison reads everyone's driven sessions); recorded in the access log.
    func runs(_ request: Request, _ context: ServerContext) async throws -> Response {
        let token = try RunRoutes.unlimitedReader(context)
        let parameters = request.form.withoutEmptyValues()
        let log = reader.log
        let access = try reader.access(token, request)
        let trend = try await access.read(.runs, { try await onThreadOfItsOwn { try await LabelTrend.load(from: log) } }, sessions: \.sessionsRead)
        let labels = trend.entries.map(\.system.label)
        let baseline = parameters.nonEmpty("baseline") ?? (labels.count >= 2 ? labels[labels.count - 2] : nil)
        let candidate = parameters.nonEmpty("candidate") ?? (labels.count >= 2 ? labels[labels.count - 1] : nil)
        var comparison: RunsPage.Comparison?
        var notice: String?
        if let baseline, let candidate {
            do {
                let compared = try await access.read(.compare, {
                    try await onThreadOfItsOwn { try await LabelComparison.load(baseline: baseline, candidate: candidate, from: log) }
                }, sessions: \.sessionsRead)
                comparison = RunsPage.Comparison(compared)
            } catch let error as LabelComparisonError {
                notice = error.message
            }
        }
        let entries = trend.entries.map { entry in
            RunsPage.Trend(label: entry.system.label, sessions: entry.sessions, wer: Self.percent(entry.system.wordErrorRate),
                           errors: entry.system.errors, words: entry.system.referenceWords,
                           latencyP50: entry.system.commitLatencyP50.map { "\($0) ms" } ?? "—",
                           latencyP95: entry.system.commitLatencyP95.map { "\($0) ms" } ?? "—", first: RFC3339.string(entry.firstDriveAt))
        }
        let points = trend.entries.indices.map { index in
            let entry = trend.entries[index]
            return TrendChart.Point(label: entry.system.label, rate: entry.system.wordErrorRate,
                                    detail: "\(entry.system.label): \(Self.percent(entry.system.wordErrorRate)) over \(entry.sessions) sessions",
                                    joinsPrevious: index == 0 || trend.entries[index - 1].sources == entry.sources)
        }
        let suites = try await self.suites()
        let model = RunsPage(
            actor: token.actor, suites: suites, hasSuites: !suites.isEmpty, trend: entries, hasTrend: !entries.isEmpty,
            chart: TrendChart.svg(points, title: "Word error rate of each label, in the order the labels ran"),
            chartNote: points.contains { !$0.joinsPrevious } ? TrendChart.breakNote : nil,
            labels: labels.map { Choice(value: $0, label: $0, selected: $0 == baseline) },
            candidates: labels.map { Choice(value: $0, label: $0, selected: $0 == candidate) },
            comparison: comparison, notice: notice)
        return WebConsole.page("runs", model)
    }

    /// Every `suite` label of the store's sessions, with its sessions, their runs (which keep their source's labels)
    /// and conditions.
    private func suites() async throws -> [RunsPage.Suite] {
        var sessions: [String: Int] = [:], runs: [String: Int] = [:]
        var conditions: [String: Set<String>] = [:]
        for summary in try await reader.sessions(.all()).sessions {
            guard let suite = summary.labels["suite"] else { continue }
            guard summary.runOf == nil else {
                runs[suite, default: 0] += 1
                continue
            }
            sessions[suite, default: 0] += 1
            if let condition = summary.labels["condition"] { conditions[suite, default: []].insert(condition) }
        }
        return Set(sessions.keys).union(runs.keys).sorted().map { name in
            let query = ((try? URLEncodedFormEncoder().encode(["label": "suite=" + name])) ?? "") + "&runs=false"
            return RunsPage.Suite(name: name, sessions: sessions[name] ?? 0, runs: runs[name] ?? 0,
                                  conditions: (conditions[name] ?? []).sorted().joined(separator: ", "), url: "/ui/sessions?" + query)
        }
    }
}
