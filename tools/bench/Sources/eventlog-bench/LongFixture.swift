import Audio
import BenchSupport
import Foundation
import Replay

/// A long fixture made by repeating the committed ones end to end (their scripts shifted in time):
/// the stress session the issue asks to generate, not commit.
struct LongFixture {
    let fixtures: URL
    let minutes: Int

    func write(to directory: URL) throws {
        let names = ["short-dictation", "two-speakers", "dialog-interruptions", "paused-resumed", "multilingual", "long-pauses"]
        var samples: [Int16] = []
        var segments: [FixtureScript.Segment] = []
        var pauses: [FixtureScript.Span] = []
        let target = minutes * 60 * 16_000
        while samples.count < target {
            for name in names where samples.count < target {
                let audio = try AudioFile.read(fixtures.appendingPathComponent("\(name).flac").path)
                let script = try FixtureScript.load(fixtures.appendingPathComponent("\(name).json").path)
                let offset = samples.count / 16
                samples += audio.samples
                segments += script.segments.map {
                    FixtureScript.Segment(text: $0.text, speaker: $0.speaker, startMilliseconds: $0.startMilliseconds + offset,
                                          endMilliseconds: $0.endMilliseconds + offset)
                }
                pauses += script.pauses.map {
                    FixtureScript.Span(startMilliseconds: $0.startMilliseconds + offset, endMilliseconds: $0.endMilliseconds + offset)
                }
            }
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try AudioFile.write(samples, format: .sessionDefault, to: directory.appendingPathComponent("long.flac").path)
        let script = FixtureScript(segments: segments, pauses: pauses, durationMilliseconds: samples.count / 16)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(script).write(to: directory.appendingPathComponent("long.json"))
        Report.emit(["scenario": "long-fixture", "seconds": samples.count / 16_000, "segments": segments.count])
    }
}
