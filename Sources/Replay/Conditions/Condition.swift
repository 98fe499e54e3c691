import Foundation

/// A way to change a session's audio for a condition suite (`sessionstore derive`), written as
/// `KIND:ARGUMENTS`: what the derived session's `condition` label holds. docs/REPLAY.md defines each.
public enum Condition: Hashable, Sendable, CustomStringConvertible {
    /// The kinds of noise `noise:` adds.
    public enum Noise: String, Hashable, Sendable, CaseIterable {
        /// Gaussian, flat spectrum.
        case white
        /// Gaussian filtered to fall 3 dB per octave (Paul Kellet's filter).
        case pink
        /// The other source sessions' voices, talking at once.
        case babble
    }

    /// `clean`: the audio as recorded (a baseline suite member, labelled like the others).
    case clean
    /// `noise:white|pink|babble:SNR`: noise at a signal-to-noise ratio of SNR dB over the speech.
    case noise(Noise, snr: Double)
    /// `gain:DB`: every sample scaled by DB decibels (negative: quieter speech).
    case gain(decibels: Double)
    /// `pauses:MS`: MS milliseconds more of the silence between each two segments.
    case pauses(extraMilliseconds: Int)
    /// `overlap:DB`: another speaker talks over the second half of every other segment, DB decibels
    /// relative to the speech.
    case overlap(decibels: Double)
    /// `clip:DB`: samples clipped at DB decibels relative to the recording's peak.
    case clip(decibels: Double)
    /// `rate:HZ`: the audio resampled to HZ samples a second.
    case sampleRate(Int)

    /// The condition `text` names.
    /// - Throws: ``ConditionError/Code/invalidCondition``, saying what is wrong and what is expected.
    public init(_ text: String) throws(ConditionError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        func number(_ index: Int, _ range: ClosedRange<Double>, _ meaning: String) throws(ConditionError) -> Double {
            guard parts.count == index + 1, let value = Double(parts[index]), value.isFinite, range.contains(value) else {
                throw ConditionError(.invalidCondition, "condition \"\(text)\": \(meaning)")
            }
            return value
        }
        switch parts[0] {
        case "clean" where parts.count == 1:
            self = .clean
        case "noise":
            guard parts.count == 3, let noise = Noise(rawValue: parts[1]) else {
                throw ConditionError(.invalidCondition, "condition \"\(text)\": noise is noise:white|pink|babble:SNR, such as noise:white:10")
            }
            self = .noise(noise, snr: try number(2, -20...60, "the SNR is a number of decibels from -20 to 60"))
        case "gain":
            self = .gain(decibels: try number(1, -60...20, "gain is gain:DB with DB from -60 to 20, such as gain:-20"))
        case "pauses":
            let extra = try number(1, 1...600_000, "pauses is pauses:MS with MS from 1 to 600000, such as pauses:3000")
            guard extra == extra.rounded() else {
                throw ConditionError(.invalidCondition, "condition \"\(text)\": pauses:MS takes whole milliseconds")
            }
            self = .pauses(extraMilliseconds: Int(extra))
        case "overlap":
            self = .overlap(decibels: try number(1, -40...10, "overlap is overlap:DB with DB from -40 to 10, such as overlap:-6"))
        case "clip":
            self = .clip(decibels: try number(1, -40...0, "clip is clip:DB with DB from -40 to 0, such as clip:-12"))
        case "rate":
            let rate = try number(1, 4000...192_000, "rate is rate:HZ with HZ from 4000 to 192000, such as rate:8000")
            guard rate == rate.rounded() else { throw ConditionError(.invalidCondition, "condition \"\(text)\": rate:HZ takes whole hertz") }
            self = .sampleRate(Int(rate))
        default:
            throw ConditionError(.invalidCondition, "condition \"\(text)\" is not one of clean, noise:white|pink|babble:SNR, gain:DB, "
                                 + "pauses:MS, overlap:DB, clip:DB, rate:HZ")
        }
    }

    /// The condition as `init` reads it, numbers in their shortest form: the `condition` label.
    public var description: String {
        switch self {
        case .clean: "clean"
        case .noise(let noise, let snr): "noise:\(noise.rawValue):\(Self.format(snr))"
        case .gain(let decibels): "gain:\(Self.format(decibels))"
        case .pauses(let extra): "pauses:\(extra)"
        case .overlap(let decibels): "overlap:\(Self.format(decibels))"
        case .clip(let decibels): "clip:\(Self.format(decibels))"
        case .sampleRate(let rate): "rate:\(rate)"
        }
    }

    /// Whether it mixes in other sessions' voices (babble, overlap): those need a second source.
    var needsOtherVoices: Bool {
        switch self {
        case .noise(.babble, _), .overlap: true
        default: false
        }
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
