import Audio
import Foundation
import SessionModel

/// Changes a source's audio (and, for `pauses`, its script's times) as a ``Condition`` says:
/// deterministic from the seed, the transcript truth untouched. Levels are measured over the speech
/// (the samples inside the script's segments), so an SNR or an overlap level is relative to what is
/// said, not to the silences around it. Definitions: docs/REPLAY.md ("Condition suites").
enum ConditionMixer {
    /// Other voices taken for babble: at most this many talk at once.
    static let babbleVoices = 4

    /// `source` under `condition`; `voices` are the other sources' speech (babble, a second speaker).
    static func apply(_ condition: Condition, to source: SuiteSource, voices: [SuiteSource],
                      seed: UInt64) throws(ConditionError) -> (audio: DecodedAudio, script: FixtureScript) {
        let audio = source.audio
        switch condition {
        case .clean: return (audio, source.script)
        case .pauses(let extra): return longerPauses(source, by: extra)
        case .sampleRate(let rate): return (audio.resampled(to: rate), source.script)
        default: break
        }
        var random = SeededGenerator(seed: seed)
        var samples = audio.samples.map { Float($0) / 32768 }
        let speechPower = power(of: samples, inside: speechRanges(source.script, audio.format))
        switch condition {
        case .clean, .pauses, .sampleRate:
            break
        case .noise(let kind, let snr):
            var noise: [Float]
            switch kind {
            case .white: noise = (0..<samples.count).map { _ in gaussian(&random) }
            case .pink: noise = pink((0..<samples.count).map { _ in gaussian(&random) })
            case .babble: noise = try babble(count: samples.count, format: audio.format, voices: voices, source: source, random: &random)
            }
            let noisePower = power(of: noise, inside: [0..<noise.count])
            if noisePower > 0, speechPower > 0 {
                let scale = Float((speechPower / (noisePower * pow(10, snr / 10))).squareRoot())
                for index in samples.indices { samples[index] += noise[index] * scale }
            }
        case .gain(let decibels):
            let factor = Float(pow(10, decibels / 20))
            for index in samples.indices { samples[index] *= factor }
        case .clip(let decibels):
            let peak = samples.reduce(0) { max($0, abs($1)) }
            let ceiling = peak * Float(pow(10, decibels / 20))
            for index in samples.indices { samples[index] = min(ceiling, max(-ceiling, samples[index])) }
        case .overlap(let decibels):
            guard let other = secondSpeaker(for: source, among: voices, random: &random) else {
                throw ConditionError(.unusableSource, "condition \(condition) needs a second source session whose voice talks over "
                                     + "session \(source.session.uuidString.lowercased()); give at least two sources")
            }
            let voice = speech(of: other, as: audio.format)
            let voicePower = power(of: voice, inside: [0..<voice.count])
            guard voicePower > 0, speechPower > 0 else { break }
            let scale = Float((speechPower * pow(10, decibels / 10) / voicePower).squareRoot())
            var cursor = random.integer(in: 0...max(0, voice.count - 1))
            let firstOverlapped = random.integer(in: 0...1)
            for (index, segment) in source.script.segments.enumerated() where index % 2 == firstOverlapped {
                let channels = audio.format.channels
                let start = audio.format.frames(milliseconds: (segment.startMilliseconds + segment.endMilliseconds) / 2) * channels
                let end = min(samples.count, audio.format.frames(milliseconds: segment.endMilliseconds) * channels)
                guard start < end else { continue }
                for position in start..<end {
                    samples[position] += voice[cursor % voice.count] * scale
                    cursor += 1
                }
            }
        }
        let changed = samples.map { Int16(clamping: Int(($0 * 32768).rounded())) }
        return (DecodedAudio(samples: changed, format: audio.format), source.script)
    }

    // MARK: Levels

    /// The sample ranges (interleaved) that the script's segments cover.
    static func speechRanges(_ script: FixtureScript, _ format: AudioFormat) -> [Range<Int>] {
        script.segments.map { segment in
            let start = format.frames(milliseconds: segment.startMilliseconds) * format.channels
            return start..<max(start, format.frames(milliseconds: segment.endMilliseconds) * format.channels)
        }
    }

    /// Mean square of the samples in `ranges` (clamped to the samples), as a Double.
    static func power(of samples: [Float], inside ranges: [Range<Int>]) -> Double {
        var sum = 0.0
        var count = 0
        for range in ranges {
            let clamped = range.clamped(to: 0..<samples.count)
            for index in clamped { sum += Double(samples[index]) * Double(samples[index]) }
            count += clamped.count
        }
        return count == 0 ? 0 : sum / Double(count)
    }

    // MARK: Noise

    /// A standard normal deviate (Box–Muller).
    static func gaussian(_ random: inout SeededGenerator) -> Float {
        let u1 = (Double(random.next() >> 11) + 1) / Double(1 << 53)
        let u2 = Double(random.next() >> 11) / Double(1 << 53)
        return Float((-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2))
    }

    /// White noise filtered to a 1/f spectrum (Paul Kellet's "refined" filter, within 0.05 dB above 9 Hz
    /// at 44.1 kHz).
    static func pink(_ white: [Float]) -> [Float] {
        var (b0, b1, b2, b3, b4, b5, b6): (Float, Float, Float, Float, Float, Float, Float) = (0, 0, 0, 0, 0, 0, 0)
        return white.map { w in
            b0 = 0.99886 * b0 + w * 0.0555179
            b1 = 0.99332 * b1 + w * 0.0750759
            b2 = 0.96900 * b2 + w * 0.1538520
            b3 = 0.86650 * b3 + w * 0.3104856
            b4 = 0.55000 * b4 + w * 0.5329522
            b5 = -0.7616 * b5 - w * 0.0168980
            let out = b0 + b1 + b2 + b3 + b4 + b5 + b6 + w * 0.5362
            b6 = w * 0.115926
            return out
        }
    }

    /// Up to ``babbleVoices`` other sources' speech, each looped from a seeded offset, summed.
    private static func babble(count: Int, format: AudioFormat, voices: [SuiteSource], source: SuiteSource,
                               random: inout SeededGenerator) throws(ConditionError) -> [Float] {
        let others = voices.filter { $0.session != source.session }
        guard !others.isEmpty else {
            throw ConditionError(.unusableSource, "babble is made from the other sources' voices, and session "
                                 + "\(source.session.uuidString.lowercased()) is the only source; give at least two")
        }
        var mix = [Float](repeating: 0, count: count)
        for other in others.prefix(babbleVoices) {
            let voice = speech(of: other, as: format)
            guard !voice.isEmpty else { continue }
            var cursor = random.integer(in: 0...(voice.count - 1))
            for index in mix.indices {
                mix[index] += voice[cursor]
                cursor = (cursor + 1) % voice.count
            }
        }
        return mix
    }

    /// A source whose speakers differ from `source`'s, else any other; seeded among equals.
    private static func secondSpeaker(for source: SuiteSource, among voices: [SuiteSource],
                                      random: inout SeededGenerator) -> SuiteSource? {
        let others = voices.filter { $0.session != source.session }
        let unlike = others.filter { Set($0.speakers).isDisjoint(with: source.speakers) }
        let pool = unlike.isEmpty ? others : unlike
        return pool.isEmpty ? nil : pool[random.integer(in: 0...(pool.count - 1))]
    }

    /// The speech of `source` (its segments, back to back) in `format`: channels averaged or repeated,
    /// resampled.
    static func speech(of source: SuiteSource, as format: AudioFormat) -> [Float] {
        let audio = source.audio.format.sampleRate == format.sampleRate ? source.audio : source.audio.resampled(to: format.sampleRate)
        let channels = audio.format.channels
        var mono: [Float] = []
        for range in speechRanges(source.script, audio.format) {
            let clamped = range.clamped(to: 0..<audio.samples.count)
            var frame = clamped.lowerBound
            while frame + channels <= clamped.upperBound {
                var sum: Float = 0
                for channel in 0..<channels { sum += Float(audio.samples[frame + channel]) / 32768 }
                mono.append(sum / Float(channels))
                frame += channels
            }
        }
        guard format.channels > 1 else { return mono }
        return mono.flatMap { [Float](repeating: $0, count: format.channels) }
    }

    // MARK: Pauses

    /// Every gap of at least 100 ms between two segments made `extra` ms longer, in its middle, by
    /// looping the gap's own audio (its background stays what it was); later times shift with it.
    static func longerPauses(_ source: SuiteSource, by extra: Int) -> (audio: DecodedAudio, script: FixtureScript) {
        let format = source.audio.format
        let channels = format.channels
        let samples = source.audio.samples
        var out: [Int16] = []
        out.reserveCapacity(samples.count)
        var copied = 0
        var insertions: [Int] = []  // milliseconds (source timeline) where `extra` was inserted
        for gap in source.script.silences where gap.endMilliseconds - gap.startMilliseconds >= 100 {
            let middle = (gap.startMilliseconds + gap.endMilliseconds) / 2
            let at = min(samples.count, format.frames(milliseconds: middle) * channels)
            let gapSamples = Array(samples[min(samples.count, format.frames(milliseconds: gap.startMilliseconds) * channels)..<min(
                samples.count, format.frames(milliseconds: gap.endMilliseconds) * channels)])
            out += samples[copied..<at]
            copied = at
            let added = format.frames(milliseconds: extra) * channels
            if gapSamples.isEmpty {
                out += [Int16](repeating: 0, count: added)
            } else {
                for index in 0..<added { out.append(gapSamples[index % gapSamples.count]) }
            }
            insertions.append(middle)
        }
        out += samples[copied...]
        func shifted(_ milliseconds: Int) -> Int { milliseconds + extra * insertions.count { $0 <= milliseconds } }
        var script = source.script
        script.segments = script.segments.map { segment in
            var moved = segment
            moved.startMilliseconds = shifted(segment.startMilliseconds)
            moved.endMilliseconds = shifted(segment.endMilliseconds)
            return moved
        }
        script.pauses = script.pauses.map {
            FixtureScript.Span(startMilliseconds: shifted($0.startMilliseconds), endMilliseconds: shifted($0.endMilliseconds))
        }
        script.durationMilliseconds = nil
        return (DecodedAudio(samples: out, format: format), script.withSilencesBetweenSegments())
    }
}
