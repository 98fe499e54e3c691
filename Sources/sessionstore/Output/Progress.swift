import ArgumentParser
import Foundation
import Output

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
final class Progress: @unchecked Sendable {
    // @unchecked: everything mutable is guarded by `lock`.
    static var standardErrorIsATerminal: Bool {
        isatty(Console.current.error) == 1 && Console.variable("TERM") != "dumb"
    }

    private let lock = NSLock()
    private let shown: Bool
    private var what: String
    private var unit: String
    private let clock = ContinuousClock()
    private var started: ContinuousClock.Instant
    private var lastDrawn: ContinuousClock.Instant?
    private var drawn = false
    /// Set by ``finish()``: a timer tick or update that comes later draws nothing, so no line reappears
    /// after the result is printed.
    private var finished = false

    init(_ what: String, unit: String, shown: Bool) {
        self.what = what
        self.unit = unit
        self.shown = shown
        started = clock.now
    }

    /// A new stage of the work: a new label, and the rate and estimate start again.
    func stage(_ what: String, unit: String = "") {
        guard shown else { return }
        lock.withLock {
            finished = false
            self.what = what
            self.unit = unit
            started = clock.now
            lastDrawn = nil
        }
        update(nil, nil)
    }

    /// `done` of `total` (unknown: nil); redrawn at most ten times a second, and always at the end.
    func update(_ done: Int, of total: Int?) { update(Double(done), total.map(Double.init)) }

    func update(_ done: UInt64, of total: UInt64?) { update(Double(done), total.map(Double.init)) }

    private func update(_ done: Double?, _ total: Double?) {
        guard shown else { return }
        lock.withLock {
            guard !finished else { return }
            let now = clock.now
            let finished = done != nil && done == total
            if let lastDrawn, now - lastDrawn < .milliseconds(100), !finished { return }
            lastDrawn = now
            draw(done, total, elapsed: now - started)
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
        lock.withLock {
            if drawn { Console.err("\r\u{1B}[K") }
            drawn = false
            finished = true
        }
    }

    private func draw(_ done: Double?, _ total: Double?, elapsed: Duration) {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        var line = what
        // A total not known yet (0, or less than what is done) is left out rather than shown wrong.
        let total = total.flatMap { $0 > 0 && ($0 >= (done ?? 0)) ? $0 : nil }
        if let done {
            line += ": \(Self.count(done))" + (total.map { " of \(Self.count($0))" } ?? "") + (unit.isEmpty ? "" : " \(unit)")
            if seconds >= 0.5, done > 0 {
                let rate = done / seconds
                line += ", \(Self.count(rate))/s"
                if let total, total > done { line += ", about \(Self.duration((total - done) / rate)) left" }
            }
        } else {
            line += "… \(Self.duration(seconds))"
        }
        Console.err("\r\u{1B}[K\(line)")
        drawn = true
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
