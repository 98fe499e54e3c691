import Foundation

extension PlaybackStarted {
    init(_ m: Sessionstore_V1_PlaybackStarted) {
        self.init(recording: m.recording, positionMilliseconds: m.positionMs, rate: m.hasRate ? m.rate : nil)
    }

    var message: Sessionstore_V1_PlaybackStarted {
        var m = Sessionstore_V1_PlaybackStarted()
        m.recording = recording
        m.positionMs = positionMilliseconds
        if let rate { m.rate = rate }
        return m
    }

    init?(json f: inout JSONFields) {
        let recording = f.string("recording", maxBytes: 256), position = f.milliseconds("position_ms")
        let rate = f.number("rate", in: 0.0625...16)
        guard let recording, let position else { return nil }
        self.init(recording: recording, positionMilliseconds: position, rate: rate)
    }

    func write(to fields: inout some PayloadFieldWriter) {
        fields.field("recording", recording)
        fields.field("position_ms", positionMilliseconds)
        fields.field("rate", rate)
    }
}

extension PlaybackPosition {
    init(_ m: Sessionstore_V1_PlaybackPosition) { self.init(recording: m.recording, positionMilliseconds: m.positionMs) }

    var message: Sessionstore_V1_PlaybackPosition {
        var m = Sessionstore_V1_PlaybackPosition()
        m.recording = recording
        m.positionMs = positionMilliseconds
        return m
    }

    init?(json f: inout JSONFields) {
        let recording = f.string("recording", maxBytes: 256), position = f.milliseconds("position_ms")
        guard let recording, let position else { return nil }
        self.init(recording: recording, positionMilliseconds: position)
    }

    func write(to fields: inout some PayloadFieldWriter) {
        fields.field("recording", recording)
        fields.field("position_ms", positionMilliseconds)
    }
}

extension PlaybackSeeked {
    init(_ m: Sessionstore_V1_PlaybackSeeked) {
        self.init(recording: m.recording, fromMilliseconds: m.fromMs, toMilliseconds: m.toMs)
    }

    var message: Sessionstore_V1_PlaybackSeeked {
        var m = Sessionstore_V1_PlaybackSeeked()
        m.recording = recording
        m.fromMs = fromMilliseconds
        m.toMs = toMilliseconds
        return m
    }

    init?(json f: inout JSONFields) {
        let recording = f.string("recording", maxBytes: 256), from = f.milliseconds("from_ms"), to = f.milliseconds("to_ms")
        guard let recording, let from, let to else { return nil }
        self.init(recording: recording, fromMilliseconds: from, toMilliseconds: to)
    }

    func write(to fields: inout some PayloadFieldWriter) {
        fields.field("recording", recording)
        fields.field("from_ms", fromMilliseconds)
        fields.field("to_ms", toMilliseconds)
    }
}
