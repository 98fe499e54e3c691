import Audio
import Foundation
@testable import Replay
import SessionModel
import Testing

/// The conditions of a condition suite on a made-up session: a tone in each of three segments with
/// silence between, so that every level can be measured exactly.
@Suite struct ConditionTests {
    static let format = AudioFormat(sampleRate: 16_000, channels: 1)

    /// Three 1 s segments of a 440 Hz tone at 0.25 of full scale, 500 ms of silence between and around.
    static func source(_ id: UInt8 = 1, speaker: String = "anna", frequency: Double = 440) -> SuiteSource {
        let segments = [(500, 1500), (2000, 3000), (3500, 4500)]
        var samples = [Int16](repeating: 0, count: format.frames(milliseconds: 5000))
        for (start, end) in segments {
            for frame in format.frames(milliseconds: start)..<format.frames(milliseconds: end) {
                samples[frame] = Int16(0.25 * 32767 * sin(2 * Double.pi * frequency * Double(frame) / 16_000))
            }
        }
        let script = FixtureScript(segments: segments.enumerated().map { index, span in
            FixtureScript.Segment(text: "segment \(index)", speaker: speaker, startMilliseconds: span.0, endMilliseconds: span.1)
        }, pauses: [FixtureScript.Span(startMilliseconds: 1600, endMilliseconds: 1900)]).withSilencesBetweenSegments()
        return SuiteSource(session: UUID(uuid: (id, 0, 0, 0, 0, 0, 0x80, 0, 0x80, 0, 0, 0, 0, 0, 0, id)), subject: SubjectHash(bytes: [UInt8](repeating: id, count: 32))!,
                           locale: "en", labels: [:], recording: "r", audio: DecodedAudio(samples: samples, format: format),
                           script: script, recordingStartedAt: 0, consentPolicyVersion: nil)
    }

    static func floats(_ audio: DecodedAudio) -> [Float] { audio.samples.map { Float($0) / 32768 } }

    /// 10·log10 of the clean speech's power over the added noise's, both over the segments.
    static func measuredSNR(clean: DecodedAudio, noisy: DecodedAudio, script: FixtureScript) -> Double {
        let ranges = ConditionMixer.speechRanges(script, clean.format)
        let (x, y) = (floats(clean), floats(noisy))
        let noise = zip(x, y).map { $1 - $0 }
        return 10 * log10(ConditionMixer.power(of: x, inside: ranges) / ConditionMixer.power(of: noise, inside: ranges))
    }

    @Test func everyConditionReadsBackAsItsOwnLabel() throws {
        for text in ["clean", "noise:white:10", "noise:pink:0", "noise:babble:-5", "gain:-20", "gain:6.5", "pauses:3000", "overlap:-6",
                     "clip:-12", "rate:8000"] {
            #expect(try Condition(text).description == text)
        }
        #expect(try Condition("gain:-20.0").description == "gain:-20", "numbers in their shortest form")
    }

    @Test func aConditionThatIsNotOneIsRefusedSayingWhatIsExpected() {
        for (text, expected) in [("noise:brown:10", "noise:white|pink|babble:SNR"), ("gain", "gain:DB"), ("gain:loud", "gain:DB"),
                                 ("pauses:2.5", "whole milliseconds"), ("rate:100", "4000 to 192000"), ("echo:3", "is not one of"),
                                 ("clip:3", "-40 to 0"), ("noise:white:nan", "SNR")] {
            #expect {
                try Condition(text)
            } throws: { error in
                guard let error = error as? ConditionError else { return false }
                return error.code == .invalidCondition && error.message.contains(expected) && error.message.contains(text)
            }
        }
    }

    @Test(arguments: [Condition.Noise.white, .pink])
    func noiseIsAddedAtTheSignalToNoiseRatioAskedOverTheSpeech(kind: Condition.Noise) throws {
        let source = Self.source()
        for snr in [0.0, 10, 20] {
            let (noisy, script) = try ConditionMixer.apply(.noise(kind, snr: snr), to: source, voices: [source], seed: 7)
            #expect(script == source.script, "the truth is the source's")
            #expect(noisy.samples.count == source.audio.samples.count)
            let measured = Self.measuredSNR(clean: source.audio, noisy: noisy, script: source.script)
            #expect(abs(measured - snr) < 0.2, "\(kind) at \(snr) dB measured \(measured) dB")
        }
    }

    @Test func babbleIsTheOtherSourcesVoicesAtTheRatioAsked() throws {
        let (one, two, three) = (Self.source(1), Self.source(2, speaker: "ben", frequency: 300), Self.source(3, speaker: "cy", frequency: 700))
        let (noisy, _) = try ConditionMixer.apply(.noise(.babble, snr: 5), to: one, voices: [one, two, three], seed: 3)
        #expect(abs(Self.measuredSNR(clean: one.audio, noisy: noisy, script: one.script) - 5) < 0.2)
        #expect(throws: ConditionError.self, "babble from the source alone") {
            try ConditionMixer.apply(.noise(.babble, snr: 5), to: one, voices: [one], seed: 3)
        }
    }

    @Test func theSameSeedGivesTheSameAudioAndAnotherSeedOther() throws {
        let source = Self.source()
        let first = try ConditionMixer.apply(.noise(.white, snr: 10), to: source, voices: [source], seed: 1).audio
        #expect(try ConditionMixer.apply(.noise(.white, snr: 10), to: source, voices: [source], seed: 1).audio == first)
        #expect(try ConditionMixer.apply(.noise(.white, snr: 10), to: source, voices: [source], seed: 2).audio != first)
    }

    @Test func gainScalesEverySampleAndClipCutsAtTheLevelBelowThePeak() throws {
        let source = Self.source()
        let quieter = try ConditionMixer.apply(.gain(decibels: -20), to: source, voices: [], seed: 1).audio
        let ranges = ConditionMixer.speechRanges(source.script, Self.format)
        let ratio = ConditionMixer.power(of: Self.floats(quieter), inside: ranges) / ConditionMixer.power(of: Self.floats(source.audio), inside: ranges)
        #expect(abs(10 * log10(ratio) + 20) < 0.05, "measured \(10 * log10(ratio)) dB")

        let clipped = try ConditionMixer.apply(.clip(decibels: -6), to: source, voices: [], seed: 1).audio
        let peak = source.audio.samples.map { abs(Int($0)) }.max()!
        let ceiling = Double(peak) * pow(10, -6.0 / 20)
        #expect(clipped.samples.allSatisfy { abs(Double($0)) <= ceiling + 1 })
        #expect(clipped.samples.count { abs(Double($0)) >= ceiling - 1 } > 1000, "the tone's crests are flattened")
    }

    @Test func longerPausesStretchEachSilenceBetweenSegmentsAndMoveWhatFollows() throws {
        let source = Self.source()
        let (audio, script) = try ConditionMixer.apply(.pauses(extraMilliseconds: 1000), to: source, voices: [], seed: 1)
        #expect(audio.samples.count == source.audio.samples.count + 2 * Self.format.frames(milliseconds: 1000), "two gaps, each 1 s longer")
        #expect(script.segments.map(\.startMilliseconds) == [500, 3000, 5500])
        #expect(script.segments.map(\.endMilliseconds) == [1500, 4000, 6500])
        #expect(script.segments.map(\.text) == source.script.segments.map(\.text))
        #expect(script.silences.map { $0.endMilliseconds - $0.startMilliseconds } == [1500, 1500])
        #expect(script.pauses == [FixtureScript.Span(startMilliseconds: 1600, endMilliseconds: 2900)], "a pause over the gap's middle grows with it")
        // The segments' audio is the source's, moved.
        let moved = Array(audio.samples[Self.format.frames(milliseconds: 3000)..<Self.format.frames(milliseconds: 4000)])
        #expect(moved == Array(source.audio.samples[Self.format.frames(milliseconds: 2000)..<Self.format.frames(milliseconds: 3000)]))
    }

    @Test func anOverlappingSpeakerTalksOnlyOverTheSecondHalfOfEveryOtherSegmentAtTheLevelAsked() throws {
        let (one, two) = (Self.source(1), Self.source(2, speaker: "ben", frequency: 300))
        let (audio, _) = try ConditionMixer.apply(.overlap(decibels: -6), to: one, voices: [one, two], seed: 5)
        let changed = zip(audio.samples, one.audio.samples).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        let halves = [(1000, 1500), (2500, 3000), (4000, 4500)].map { Self.format.frames(milliseconds: $0.0)..<Self.format.frames(milliseconds: $0.1) }
        let touched = halves.filter { half in changed.contains { half.contains($0) } }
        #expect(touched.count == 1 || touched.count == 2, "every other segment: \(touched)")
        #expect(changed.allSatisfy { index in halves.contains { $0.contains(index) } }, "nothing outside the second halves")
        let added = zip(audio.samples, one.audio.samples).map { Float($0) / 32768 - Float($1) / 32768 }
        let ratio = ConditionMixer.power(of: added, inside: touched) / ConditionMixer.power(of: Self.floats(one.audio), inside: touched)
        #expect(abs(10 * log10(ratio) + 6) < 0.3, "measured \(10 * log10(ratio)) dB")
        #expect(throws: ConditionError.self) { try ConditionMixer.apply(.overlap(decibels: -6), to: one, voices: [one], seed: 5) }
    }

    @Test func anotherRateResamplesAndKeepsTheTimes() throws {
        let source = Self.source()
        let (audio, script) = try ConditionMixer.apply(.sampleRate(8000), to: source, voices: [], seed: 1)
        #expect(audio.format == AudioFormat(sampleRate: 8000, channels: 1))
        #expect(audio.samples.count == source.audio.samples.count / 2)
        #expect(script == source.script)
    }

    @Test func aDerivedSessionIsLabelledWithItsConditionSpeakerSourceAndSuite() throws {
        var source = Self.source()
        source.labels = ["team": "north", "condition": "old"]
        let labels = try ConditionSuite.labels(of: source, under: .gain(decibels: -20),
                                               options: ConditionSuite.Options(conditions: [], suite: "nightly", labels: ["build": "42"]))
        // The source was derived under "old": its derived session went through both, in order.
        #expect(labels == ["team": "north", "build": "42", "condition": "old,gain:-20", "speaker": "anna", "suite": "nightly",
                           "derived_from": source.session.uuidString.lowercased()])
        #expect(ConditionSuite.derivedSeed(1, source.session, .clean) != ConditionSuite.derivedSeed(1, source.session, .gain(decibels: -20)))
        #expect(ConditionSuite.derivedSeed(1, source.session, .clean) == ConditionSuite.derivedSeed(1, source.session, .clean))
    }
}
