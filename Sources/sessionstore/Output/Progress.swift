import ArgumentParser
import Foundation
import Output
import Synchronization

/// `--quiet`: no progress line.
struct ProgressOption: ParsableArguments {
    @Flag(help: "Show no progress line (one appears only when standard error is a terminal).")
    var quiet = false

    /// A progress line for `what`, shown only on a terminal and without --quiet.
    func start(_ what: String, unit: String = "") -> Progress {
        Progress(what, unit: unit, shown: !quiet && Progress.standardErrorIsATerminal)
    }

    /// Runs `body`, work that cannot be counted, under a line showing `what` and the time taken; the
    /// line is erased however `body` ends.
    func running<R>(_ what: String, _ body: () throws -> R) rethrows -> R {
        let progress = start(what)
        defer { progress.finish() }
        return try progress.running(what, body)
    }
}

/// One line of progress on standard error for long work: what is being done, how far, how fast and
/// about how long is left (or, for work that cannot be counted, how long it has taken). It is drawn
/// only on a terminal, never into pipes, files or CI logs; at most ten times a second; and erased
/// when the work ends, so that nothing of it stays in the output.
final class Progress: Sendable {
    static var standardErrorIsATerminal: Bool {
        isatty(Console.current.error) == 1 && Console.variable("TERM") != "dumb"
    }

    private struct Line {
        var what: String
        var unit: String
        var started: ContinuousClock.Instant
        var lastDrawn: ContinuousClock.Instant?
        var drawn = false
        /// Set by ``finish()``: a timer tick or update that comes later draws nothing, so no line reappears
        /// after the result is printed.
        var finished = false
    }

    private let shown: Bool
    private let line: Mutex<Line>

    init(_ what: String, unit: String, shown: Bool) {
        self.shown = shown
        line = Mutex(Line(what: what, unit: unit, started: .now))
    }

    /// A new stage of the work: a new label, and the rate and estimate start again.
    func stage(_ what: String, unit: String = "") {
        guard shown else { return }
        line.withLock { $0 = Line(what: what, unit: unit, started: .now, drawn: $0.drawn) }
        update(nil, nil)
    }

    /// `done` of `total` (unknown: nil); redrawn at most ten times a second, and always at the end.
    func update(_ done: Int, of total: Int?) { update(Double(done), total.map(Double.init)) }

    func update(_ done: UInt64, of total: UInt64?) { update(Double(done), total.map(Double.init)) }

    private func update(_ done: Double?, _ total: Double?) {
        guard shown else { return }
        line.withLock { line in
            guard !line.finished else { return }
            let now = ContinuousClock.now
            let finished = done != nil && done == total
            if let lastDrawn = line.lastDrawn, now - lastDrawn < .milliseconds(100), !finished { return }
            line.lastDrawn = now
            Self.draw(&line, done, total, elapsed: now - line.started)
        }
    }

    /// Runs `body`, work that cannot be counted, with the line showing `what` and the time it has taken.
    func running<R>(_ what: String, _ body: () throws -> R) rethrows -> R {
        stage(what)
        guard shown else { return try body() }
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250))
        timer.setEventHandler { [self] in update(nil, nil) }
        timer.resume()
        defer { timer.cancel() }
        return try body()
    }

    /// Erases the line.
    func finish() {
        guard shown else { return }
        line.withLock { line in
            if line.drawn { Console.err("\r\u{1B}[K") }
            line.drawn = false
            line.finished = true
        }
    }

    private static func draw(_ progress: inout Line, _ done: Double?, _ total: Double?, elapsed: Duration) {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        var line = progress.what
        // A total not known yet (0, or less than what is done) is left out rather than shown wrong.
        let total = total.flatMap { $0 > 0 && ($0 >= (done ?? 0)) ? $0 : nil }
        if let done {
            line += ": \(Self.count(done))" + (total.map { " of \(Self.count($0))" } ?? "") + (progress.unit.isEmpty ? "" : " \(progress.unit)")
            if seconds >= 0.5, done > 0 {
                let rate = done / seconds
                line += ", \(Self.count(rate))/s"
                if let total, total > done { line += ", about \(Self.duration((total - done) / rate)) left" }
            }
        } else {
            line += "… \(Self.duration(seconds))"
        }
        Console.err("\r\u{1B}[K\(line)")
        progress.drawn = true
    }

    /// 1234 → "1,234"; 1_234_567 → "1.2M".
    static func count(_ value: Double) -> String {
        switch value {
        case 10_000_000...: String(format: "%.1fM", value / 1_000_000)
        case 100_000...: String(format: "%.0fk", value / 1000)
        default: Int(value).formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US")))
        }
    }

    static func duration(_ seconds: Double) -> String {
        seconds < 60 ? String(format: "%.0f s", max(seconds, 1)) : String(format: "%d min %02d s", Int(seconds) / 60, Int(seconds) % 60)
    }
}
