import Foundation
import Projections
import SessionModel
@testable import SessionServer
import Testing

/// The console renders a page from its model made into dictionaries once (`TemplateValues`) instead of
/// letting swift-mustache reflect the model at every name: the page must be the same to the byte.
@Suite struct TemplateValuesTests {
    static func page(rows: [SessionListRow]) -> SessionsPage {
        SessionsPage(actor: "auditor", q: "", subject: "user-7", label: "", statuses: [Choice(value: "ended", label: "ended", selected: true)],
                     kinds: [], sorts: [Choice(value: "started", label: "Started", selected: false)], orders: [], rows: rows,
                     matching: rows.count, matchingNoun: rows.count == 1 ? "session" : "sessions", violationsAsOf: nil,
                     firstURL: "/ui/sessions", nextURL: nil)
    }

    static func rows() -> [SessionListRow] {
        var withEverything = SessionSummary(session: UUID())
        withEverything.status = .ended
        withEverything.startedAt = 1_795_255_200_000
        withEverything.endedAt = 1_795_255_261_500
        withEverything.words = 12
        withEverything.subject = SubjectHash(bytes: Array(repeating: 7, count: 32))!
        withEverything.consent = ["transcription": true, "audio_recording": false]
        withEverything.runLabel = "nightly"
        withEverything.runOf = UUID()
        let bare = SessionSummary(session: UUID())  // nil subject, start and duration: the names fall through to the page
        return [SessionListRow(withEverything, violations: 2, runs: 3), SessionListRow(bare, violations: nil, runs: 0)]
    }

    @Test func aSessionsPageRendersTheSameFromItsValuesAsFromItsModel() {
        for rows in [Self.rows(), []] {
            let model = Self.page(rows: rows)
            let reflected = ConsoleTemplates.library.render(model, withTemplate: "sessions")
            let fromValues = ConsoleTemplates.library.render(TemplateValues.of(model), withTemplate: "sessions")
            #expect(reflected != nil)
            #expect(fromValues == reflected)
        }
        let html = ConsoleTemplates.library.render(TemplateValues.of(Self.page(rows: Self.rows())), withTemplate: "sessions") ?? ""
        #expect(html.contains("nightly") && html.contains("run of"))
        #expect(html.contains("No session matches.") == false)
    }

    @Test func nilPropertiesAreLeftOutAndNestedModelsBecomeDictionaries() throws {
        let values = try #require(TemplateValues.of(Self.page(rows: Self.rows())) as? [String: Any])
        #expect(values["violationsAsOf"] == nil && values["nextURL"] == nil)
        #expect(values["firstURL"] as? String == "/ui/sessions")
        let rows = try #require(values["rows"] as? [Any])
        let bare = try #require(rows.last as? [String: Any])
        #expect(bare["subject"] == nil && bare["runs"] as? Int == 0)
        #expect(values["statuses"] as? [Any] != nil)
    }
}
