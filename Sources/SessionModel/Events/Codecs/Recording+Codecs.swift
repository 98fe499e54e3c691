import Foundation

extension RecordingStarted {
    init(_ m: Sessionstore_V1_RecordingStarted) {
        self.init(recording: m.recording, sampleRate: m.sampleRate, channels: m.channels)
    }

    var message: Sessionstore_V1_RecordingStarted {
        var m = Sessionstore_V1_RecordingStarted()
        m.recording = recording
        m.sampleRate = sampleRate
        m.channels = channels
        return m
    }

    init?(json f: inout JSONFields) {
        let recording = f.string("recording", maxBytes: 256)
        let rate = f.integer("sample_rate", in: 1000...384_000), channels = f.integer("channels", in: 1...8)
        guard let recording, let rate, let channels else { return nil }
        self.init(recording: recording, sampleRate: UInt32(rate), channels: UInt32(channels))
    }

    func write(to fields: inout some PayloadFieldWriter) {
        fields.field("recording", recording)
        fields.field("sample_rate", sampleRate)
        fields.field("channels", channels)
    }
}

extension RecordingChunk {
    init(_ m: Sessionstore_V1_RecordingChunk) {
        self.init(recording: m.recording, index: m.index, pcm: [])
        switch m.audio {
        case .pcm(let bytes)?: audio = .pcm(Array(bytes))
        case .flac(let bytes)?: audio = .flac(Array(bytes))
        case nil: break
        }
        frames = m.hasFrames ? m.frames : nil
        pcmSHA256 = m.hasPcmSha256 ? Array(m.pcmSha256) : nil
    }

    var message: Sessionstore_V1_RecordingChunk {
        var m = Sessionstore_V1_RecordingChunk()
        m.recording = recording
        m.index = index
        switch audio {  // empty audio is left out, as proto3 leaves out empty bytes
        case .pcm(let bytes): if !bytes.isEmpty { m.pcm = Data(bytes) }
        case .flac(let bytes): if !bytes.isEmpty { m.flac = Data(bytes) }
        }
        if let frames { m.frames = frames }
        if let pcmSHA256 { m.pcmSha256 = Data(pcmSHA256) }
        return m
    }

    init?(json f: inout JSONFields) {
        let recording = f.string("recording", maxBytes: 256), index = f.integer("index", in: 0...Int64(UInt32.max))
        var pcm: [UInt8]?
        if let base64 = f.string("pcm", maxBytes: 16 << 20) {
            if let data = Data(base64Encoded: base64) {
                if data.count % 2 == 0 { pcm = [UInt8](data) } else {
                    f.problem("pcm", "holds \(data.count) bytes; 16-bit samples need an even number")
                }
            } else {
                f.problem("pcm", "is not valid base64")
            }
        }
        guard let recording, let index, let pcm else { return nil }
        self.init(recording: recording, index: UInt64(index), pcm: pcm)
    }

    /// `pcm`: the chunk's samples, decoded ahead (`--with-audio`), written as base64.
    func write(to fields: inout some PayloadFieldWriter, pcm: [UInt8]?) {
        fields.field("recording", recording)
        fields.field("index", index)
        fields.field("frames", frames)
        if frames == nil, case .pcm(let bytes) = audio { fields.field("pcm_bytes", bytes.count) }
        if let pcm { fields.field("pcm", base64: pcm) }
    }
}

/// A message that names only a recording (recording stopped, playback completed).
protocol RecordingMessage: EnvelopeMessage {
    var recording: String { get set }
}

extension Sessionstore_V1_RecordingStopped: RecordingMessage {}
extension Sessionstore_V1_PlaybackCompleted: RecordingMessage {}

extension RecordingReference {
    init<M: RecordingMessage>(_ message: M) { self.init(recording: message.recording) }

    func message<M: RecordingMessage>(_ empty: M) -> M {
        var message = empty
        message.recording = recording
        return message
    }

    init?(json f: inout JSONFields) {
        guard let recording = f.string("recording", maxBytes: 256) else { return nil }
        self.init(recording: recording)
    }

    func write(to fields: inout some PayloadFieldWriter) { fields.field("recording", recording) }
}
