import Foundation

/// How far an ingest is, for a progress display: its stage, and the stage's items done of its total.
public struct IngestProgress: Sendable {
    public enum Stage: String, Sendable {
        case parsing = "parsing lines"
        case codingAudio = "coding audio chunks as FLAC"
        case appending = "appending"
    }

    public var stage: Stage
    public var done: Int
    public var total: Int
}

/// Counts items finished by several workers and reports every `step` of them (and the last).
final class ProgressTally: @unchecked Sendable {
    // @unchecked: `done` is guarded by `lock`.
    private let lock = NSLock()
    private var done = 0
    private let total: Int
    private let step: Int
    private let report: (Int, Int) -> Void

    init(total: Int, step: Int = 1024, report: @escaping (Int, Int) -> Void) {
        self.total = total
        self.step = step
        self.report = report
    }

    func add(_ count: Int = 1) {
        lock.lock()
        let before = done
        done += count
        let now = done
        lock.unlock()
        if now / step != before / step || now == total { report(now, total) }
    }
}
