import Foundation

extension ReplayRun {
    init(_ m: Sessionstore_V1_ReplayRun) throws {
        guard let outcome = Outcome(rawValue: m.outcome) else {
            throw WireReader.Malformed(reason: "field 14 \"\(m.outcome)\" is not a replay outcome")
        }
        self.init(source: try UUID(wire: Array(m.sourceSession), field: 8), command: m.command, label: m.hasLabel ? m.label : nil,
                  speed: m.speed, startedAt: m.startedAtMs, endedAt: m.endedAtMs, outcome: outcome,
                  wordErrorRate: m.hasWordErrorRate ? m.wordErrorRate : nil)
    }

    var message: Sessionstore_V1_ReplayRun {
        var m = Sessionstore_V1_ReplayRun()
        m.sourceSession = Data(source.wireBytes)
        m.command = command
        if let label { m.label = label }
        m.speed = speed
        m.startedAtMs = startedAt
        m.endedAtMs = endedAt
        m.outcome = outcome.rawValue
        if let wordErrorRate { m.wordErrorRate = wordErrorRate }
        return m
    }

    /// Ingest refuses it (the store writes it); this is the fields `events` prints.
    func write(to fields: inout some PayloadFieldWriter) {
        fields.field("source_session", id: source)
        fields.field("command", command)
        fields.field("label", label)
        fields.field("speed", speed)
        fields.field("started_at", time: startedAt)
        fields.field("ended_at", time: endedAt)
        fields.field("outcome", outcome.rawValue)
        fields.field("word_error_rate", wordErrorRate)
    }
}
