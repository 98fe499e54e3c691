import Output
import Replay

/// One step of a replay trace (docs/REPLAY.md).
struct TraceRow: OutputRow {
    static let columns = ["step", "virtual_ms", "wait_ms", "type", "stream_number", "views_digest",
                          "clock_went_backwards_ms"]

    var step: ReplayStep

    func write(to fields: inout Fields) {
        fields.field("step", step.number)
        fields.field("virtual_ms", step.virtualMilliseconds)
        fields.field("wait_ms", step.waitMilliseconds)
        fields.field("type", step.event.event.type.rawValue)
        fields.field("stream_number", step.event.streamNumber)
        fields.field("views_digest", step.viewsDigest)
        fields.field("clock_went_backwards_ms", step.clockWentBackwardsBy)
    }
}

/// The first event where replayed views and stored projections differ.
struct DivergenceRow: OutputRow {
    static let columns = ["view", "field", "expected", "actual", "step", "stream_number", "type"]

    var divergence: ReplayDivergence

    func write(to fields: inout Fields) {
        fields.field("view", divergence.view)
        fields.field("field", divergence.field)
        fields.field("expected", divergence.expected)
        fields.field("actual", divergence.actual)
        fields.field("step", divergence.step)
        fields.field("stream_number", divergence.eventNumber)
        fields.field("type", divergence.eventType)
    }
}

/// `{"divergence": {…}}`, as `replay --verify` prints it.
struct DivergenceDocument: OutputRow {
    static let columns = ["divergence"]

    var divergence: ReplayDivergence

    func write(to fields: inout Fields) {
        fields.field("divergence", object: DivergenceRow(divergence: divergence).write)
    }
}
