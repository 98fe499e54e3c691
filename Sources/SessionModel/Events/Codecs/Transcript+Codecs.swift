import Foundation

extension TranscriptPartial {
    init(_ m: Sessionstore_V1_TranscriptPartial) {
        self.init(segment: m.segment, revision: m.revision, text: m.text, startMilliseconds: m.startMs, endMilliseconds: m.endMs,
                  stability: m.hasStability ? m.stability : nil)
    }

    var message: Sessionstore_V1_TranscriptPartial {
        var m = Sessionstore_V1_TranscriptPartial()
        m.segment = segment
        m.revision = revision
        m.text = text
        m.startMs = startMilliseconds
        m.endMs = endMilliseconds
        if let stability { m.stability = stability }
        return m
    }

    init?(json f: inout JSONFields) {
        let segment = f.identifier("segment"), revision = f.integer("revision", in: 0...Int64(UInt32.max))
        let text = f.string("text", nonEmpty: false), (start, end) = f.span()
        let stability = f.number("stability", in: 0...1)
        guard let segment, let revision, let text, let start, let end else { return nil }
        self.init(segment: segment, revision: UInt32(revision), text: text, startMilliseconds: start, endMilliseconds: end,
                  stability: stability)
    }

    func write(to fields: inout some PayloadFieldWriter) {
        fields.field("segment", segment)
        fields.field("revision", revision)
        fields.field("text", text)
        fields.field("start_ms", startMilliseconds)
        fields.field("end_ms", endMilliseconds)
        fields.field("stability", stability)
    }
}

extension TranscriptCommitted {
    init(_ m: Sessionstore_V1_TranscriptCommitted) {
        self.init(segment: m.segment, text: m.text, startMilliseconds: m.startMs, endMilliseconds: m.endMs,
                  confidence: m.hasConfidence ? m.confidence : nil, speaker: m.hasSpeaker ? m.speaker : nil,
                  words: m.words.map(TranscriptWord.init))
    }

    var message: Sessionstore_V1_TranscriptCommitted {
        var m = Sessionstore_V1_TranscriptCommitted()
        m.segment = segment
        m.text = text
        m.startMs = startMilliseconds
        m.endMs = endMilliseconds
        if let confidence { m.confidence = confidence }
        if let speaker { m.speaker = speaker }
        m.words = words.map(\.message)
        return m
    }

    init?(json f: inout JSONFields) {
        let segment = f.identifier("segment"), text = f.string("text", nonEmpty: false), (start, end) = f.span()
        let confidence = f.number("confidence", in: 0...1), speaker = f.string("speaker", required: false, maxBytes: 256)
        let words = f.words()
        guard let segment, let text, let start, let end, let words else { return nil }
        self.init(segment: segment, text: text, startMilliseconds: start, endMilliseconds: end, confidence: confidence,
                  speaker: speaker, words: words)
    }

    func write(to fields: inout some PayloadFieldWriter) {
        fields.field("segment", segment)
        fields.field("text", text)
        fields.field("start_ms", startMilliseconds)
        fields.field("end_ms", endMilliseconds)
        fields.field("confidence", confidence)
        fields.field("speaker", speaker)
        fields.field("words", words: words.isEmpty ? nil : words)
    }
}

extension TranscriptCorrected {
    init(_ m: Sessionstore_V1_TranscriptCorrected) {
        self.init(segment: m.segment, text: m.text, reason: m.hasReason ? m.reason : nil)
    }

    var message: Sessionstore_V1_TranscriptCorrected {
        var m = Sessionstore_V1_TranscriptCorrected()
        m.segment = segment
        m.text = text
        if let reason { m.reason = reason }
        return m
    }

    init?(json f: inout JSONFields) {
        let segment = f.identifier("segment"), text = f.string("text", nonEmpty: false)
        let reason = f.string("reason", required: false)
        guard let segment, let text else { return nil }
        self.init(segment: segment, text: text, reason: reason)
    }

    func write(to fields: inout some PayloadFieldWriter) {
        fields.field("segment", segment)
        fields.field("text", text)
        fields.field("reason", reason)
    }
}

extension TranscriptWord {
    init(_ m: Sessionstore_V1_TranscriptWord) {
        self.init(word: m.word, startMilliseconds: m.startMs, endMilliseconds: m.endMs, confidence: m.hasConfidence ? m.confidence : nil)
    }

    var message: Sessionstore_V1_TranscriptWord {
        var m = Sessionstore_V1_TranscriptWord()
        m.word = word
        m.startMs = startMilliseconds
        m.endMs = endMilliseconds
        if let confidence { m.confidence = confidence }
        return m
    }
}

extension JSONFields {
    /// `start_ms` and `end_ms`, with end not before start.
    mutating func span() -> (UInt64?, UInt64?) {
        let start = milliseconds("start_ms"), end = milliseconds("end_ms")
        if let start, let end, end < start {
            problem("end_ms", "is \(end), before start_ms \(start)")
            return (start, nil)
        }
        return (start, end)
    }

    /// A committed segment's `words`, each an object of `word`, `start_ms`, `end_ms` and `confidence`; nil when one is wrong.
    mutating func words() -> [TranscriptWord]? {
        guard let array = array("words") else { return [] }
        var words: [TranscriptWord] = []
        for (index, element) in array.enumerated() {
            guard case .object(let object) = element else {
                problem("words[\(index)]", "must be an object with word, start_ms and end_ms")
                continue
            }
            var word = JSONFields(object, line: line)
            let text = word.string("word"), (start, end) = word.span(), confidence = word.number("confidence", in: 0...1)
            word.rejectUnknownFields()
            for problem in word.problems { self.problem("words[\(index)].\(problem.field ?? "")", problem.reason) }
            if let text, let start, let end {
                words.append(TranscriptWord(word: text, startMilliseconds: start, endMilliseconds: end, confidence: confidence))
            }
        }
        return words.count == array.count ? words : nil
    }
}
