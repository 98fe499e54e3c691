import EventLog
import Foundation
import Migrations
import SessionModel

/// The zstd dictionary a new store installs for session events: trained on generated events with
/// made-up words and random ids, so it holds no one's data, only the shape of the payloads (field
/// tags, event type names, common words and time prefixes). Small events compress with it; without
/// one, zstd cannot shrink a 150-byte payload at all.
public enum SessionDictionary {
    /// Deterministic samples: the same dictionary on every machine.
    public static func samples(count: Int = 6000, seed: UInt64 = 20_261_122) -> [ProposedEvent] {
        var random = SeededGenerator(seed: seed)
        let codec = SessionMigrations.codec
        func uuid() -> UUID {
            UUID(version8From: (0..<2).flatMap { _ in withUnsafeBytes(of: random.next()) { Array($0) } })
        }
        func subject() -> SubjectHash {
            SubjectHash(bytes: (0..<4).flatMap { _ in withUnsafeBytes(of: random.next()) { Array($0) } })!
        }
        func words(_ range: ClosedRange<Int>) -> [String] {
            (0..<random.integer(in: range)).map { _ in vocabulary[random.integer(in: 0...(vocabulary.count - 1))] }
        }
        var samples: [ProposedEvent] = []
        var session = uuid()
        var time: Int64 = 1_795_000_000_000
        var segment = 0
        for index in 0..<count {
            if index % 200 == 0 { session = uuid(); segment = 0 }
            time += Int64(random.integer(in: 50...1500))
            let start = UInt64(random.integer(in: 0...3_600_000))
            let payload: SessionPayload
            switch random.integer(in: 0...99) {
            case 0..<55:
                payload = .transcriptPartial(TranscriptPartial(
                    segment: "\(segment)", revision: UInt32(random.integer(in: 0...12)), text: words(1...14).joined(separator: " "),
                    startMilliseconds: start, endMilliseconds: start + UInt64(random.integer(in: 100...6000)),
                    stability: random.chance(0.5) ? Double(random.integer(in: 0...100)) / 100 : nil))
            case 55..<75:
                let said = words(2...16)
                var at = start
                let timed = said.map { word -> TranscriptWord in
                    defer { at += 300 }
                    return TranscriptWord(word: word, startMilliseconds: at, endMilliseconds: at + 280,
                                          confidence: random.chance(0.5) ? Double(random.integer(in: 70...99)) / 100 : nil)
                }
                payload = .transcriptCommitted(TranscriptCommitted(
                    segment: "\(segment)", text: said.joined(separator: " ").capitalized + ".", startMilliseconds: start,
                    endMilliseconds: at, confidence: Double(random.integer(in: 70...99)) / 100,
                    speaker: random.chance(0.3) ? "speaker-\(random.integer(in: 1...3))" : nil,
                    words: random.chance(0.5) ? timed : []))
                segment += 1
            case 75..<80:
                let change = ConsentChange(subject: subject(), consentType: random.chance(0.5) ? "audio_recording" : "transcription",
                                           method: random.chance(0.7) ? "in_app_prompt" : "settings_screen", policyVersion: "2026-\(random.integer(in: 1...12))")
                payload = random.chance(0.8) ? .consentGranted(change) : .consentRevoked(change)
            case 80..<84:
                payload = .sessionStarted(SessionStarted(subject: subject(), locale: ["en-GB", "en-US", "de-DE", "fr-FR"][random.integer(in: 0...3)],
                                                         device: random.chance(0.5) ? "iPhone15,\(random.integer(in: 1...5))" : nil,
                                                         appVersion: "4.\(random.integer(in: 0...20)).\(random.integer(in: 0...9))"))
            case 84..<88:
                payload = random.chance(0.5) ? .sessionEnded(SessionEnded(reason: random.chance(0.5) ? "user" : nil)) : .sessionPaused(SessionPaused(reason: nil))
            case 88..<91:
                payload = .recordingStarted(RecordingStarted(recording: "recording-\(random.integer(in: 1...4))", sampleRate: 16_000, channels: 1))
            case 91..<94:
                payload = .recordingStopped(RecordingStopped(recording: "recording-\(random.integer(in: 1...4))"))
            case 94..<97:
                payload = .playbackStarted(PlaybackStarted(recording: "recording-\(random.integer(in: 1...4))",
                                                           positionMilliseconds: start, rate: random.chance(0.3) ? 1.5 : nil))
            default:
                payload = .playbackSeeked(PlaybackSeeked(recording: "recording-\(random.integer(in: 1...4))",
                                                         fromMilliseconds: start, toMilliseconds: start / 2))
            }
            samples.append(codec.encode(SessionEvent(id: uuid(), session: session, occurredAt: time, payload: payload)))
        }
        return samples
    }

    /// Trains the dictionary (about a tenth of a second), once per process: the samples are the same each time.
    public static func train() throws -> [UInt8] {
        try trained.get()
    }

    private static let trained = Result { try EventLog.trainDictionary(samples: samples()) }

    /// Trains and installs it in `log`; new small events use it from now on.
    @discardableResult
    public static func install(in log: EventLog) throws -> UInt16 {
        try log.installDictionary(try train())
    }

    /// Everyday dictation words; none of them about anyone.
    static let vocabulary = """
        the a and to of in is for that with on as it at be this by from or an are was patient reports pain \
        left right knee shoulder back mild severe since yesterday week weeks days morning evening night blood \
        pressure normal high low heart rate temperature fever cough headache medication dose daily twice take \
        continue stop start review follow up appointment next monday tuesday wednesday thursday friday please \
        send results lab test scan referral letter doctor nurse clinic hospital ward bed notes plan history \
        allergies none known no yes well better worse stable overnight call me if anything changes meeting \
        agenda action items summary email draft reply thanks regards today tomorrow new order number invoice \
        customer account update project deadline report quarter budget team schedule visit two three four five \
        ten minutes hours one first second last also then so but not will would should could can may need \
        okay right so um uh
        """.split(separator: " ").map(String.init).filter { !$0.isEmpty }
}
