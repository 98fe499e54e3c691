/// A replay's virtual clock over a session's recorded times: it starts at 0 on the first event and
/// moves by the recorded gaps; a recorded time that goes backwards moves it by 0.
struct VirtualTimeline: Sendable {
    /// Virtual milliseconds since the first event.
    private(set) var now: Int64 = 0
    private var latest: Int64?

    /// The virtual wait before an event recorded at `time`, and how far the recorded clock went back
    /// before it, if it did (the wait is then 0).
    func gap(to time: Int64) -> (wait: Int64, backwards: Int64?) {
        guard let latest else { return (0, nil) }
        return time < latest ? (0, latest - time) : (time - latest, nil)
    }

    /// Moves to the event recorded at `time`; returns its gap.
    @discardableResult
    mutating func advance(to time: Int64) -> (wait: Int64, backwards: Int64?) {
        let gap = gap(to: time)
        now += gap.wait
        latest = max(latest ?? time, time)
        return gap
    }
}
