import EventLog
import Foundation
import Output

/// A problem `verify` found, with the global position it concerns.
struct ProblemRow: OutputRow {
    static let columns = ["position", "message"]

    var problem: IntegrityProblem

    func write(to fields: inout Fields) {
        fields.field("position", problem.position)
        fields.field("message", problem.message)
    }
}

/// A verify report as one JSON document.
struct VerifyDocument: OutputRow {
    static let columns = ["intact", "checked_records", "erased_records", "checked_view_rows", "erased_view_rows", "tree_size", "root_hash",
                          "anchor_consistent",
                          "content_authenticated", "problem_count", "problems"]

    var report: VerificationReport

    func write(to fields: inout Fields) {
        fields.field("intact", report.isIntact)
        fields.field("checked_records", report.checkedRecords)
        fields.field("erased_records", report.erasedRecords)
        fields.field("checked_view_rows", report.checkedViewRows)
        fields.field("erased_view_rows", report.erasedViewRows)
        fields.field("tree_size", report.treeHead.size)
        fields.field("root_hash", Data(report.treeHead.rootHash).base64EncodedString())
        fields.field("anchor_consistent", report.anchorConsistent)
        fields.field("content_authenticated", report.contentAuthenticated)
        fields.field("problem_count", report.problemCount)
        fields.field("problems", rows: report.problems.map(ProblemRow.init))
    }
}
