import Audio
import BenchSupport
import EventLog
import Foundation
import Ingest
import Migrations
import Projections
import SessionAudio
import SessionLog
import SessionModel

/// A store of realistic dictation sessions: rebuild of the projections, the session list, and a
/// one-hour session for `sessionstore transcript` (timed by tools/bench/run as a cold process).
struct SessionsMeasurement {
    let work: URL
    let sessions: Int
    let events: Int

    func run() async throws {
        let measurements = Measurements(work: work)
        let path = measurements.storePath("sessions")
        let log = try measurements.freshSessionStore("sessions")
        let codec = SessionMigrations.codec
        var random = Workload.SplitMix(state: 11)
        let perSession = max(4, events / sessions)
        var written = 0
        for index in 0..<sessions {
            let session = UUID(uuid: withUnsafeBytes(of: (random.next(), random.next())) { $0.load(as: uuid_t.self) })
            let subject = SubjectHash(bytes: log.identifierHash("user-\(index % (sessions / 3 + 1))"))!
            var batch: [SessionEvent] = []
            var at: Int64 = 1_795_255_200_000 + Int64(index) * 60_000
            func add(_ payload: SessionPayload) {
                at += 250
                batch.append(SessionEvent(session: session, occurredAt: at, payload: payload))
            }
            add(.sessionStarted(SessionStarted(subject: subject, locale: "en-GB")))
            add(.consentGranted(ConsentChange(subject: subject, consentType: "transcription", method: "in_app_prompt")))
            var segment = 0
            while batch.count < perSession - 1 {
                let text = (0..<(2 + Int(random.next() % 4))).map { _ in Workload.words[Int(random.next() % UInt64(Workload.words.count))] }
                    .joined(separator: " ")
                if random.next() % 4 == 0 {
                    add(.transcriptCommitted(TranscriptCommitted(segment: "\(segment)", text: text, startMilliseconds: UInt64(segment) * 900,
                                                                 endMilliseconds: UInt64(segment) * 900 + 850, confidence: 0.9)))
                    segment += 1
                } else {
                    add(.transcriptPartial(TranscriptPartial(segment: "\(segment)", revision: UInt32(random.next() % 4), text: text,
                                                             startMilliseconds: UInt64(segment) * 900, endMilliseconds: UInt64(segment) * 900 + 400)))
                }
            }
            add(.sessionEnded(SessionEnded()))
            let consentCopy = codec.encode(batch[1], storedOutsideSession: true)
            try await log.append([StreamAppend(stream: StreamID(session), events: batch.map { codec.encode($0) }),
                                  StreamAppend(stream: SessionStreams.consent(of: subject), events: [consentCopy], keyScope: .audit)])
            written += batch.count + 1
        }
        let hour = try await appendOneHourSession(log, codec: codec)
        written += hour.events
        try log.close()

        var result = try Self.rebuildAndList(try EventLog.open(at: path, key: .keyFile(measurements.keyPath), options: benchOptions))
        result.merge(["scenario": "projections", "events": written, "hour_session": hour.session.uuidString.lowercased(),
                      "hour_events": hour.events, "store": path, "key": measurements.keyPath]) { $1 }
        Report.emit(result)
    }

    /// Rebuilds the projections, then lists the sessions, timing each.
    static func rebuildAndList(_ log: EventLog) throws -> [String: Any] {
        let runner = ProjectionRunner(log: log)
        let clock = ContinuousClock()
        var started = clock.now
        let folded = try runner.rebuild()
        let rebuild = Report.seconds(clock.now - started)
        started = clock.now
        try runner.catchUp()
        let list = try runner.sessions()
        return ["folded": folded, "rebuild_seconds": rebuild, "per_second": Double(folded) / rebuild,
                "sessions": list.count, "sessions_list_ms": Report.seconds(clock.now - started) * 1000]
    }

    /// One hour of dictation: 36,000 partial and commit events and 36,000 chunks of 100 ms PCM (FLAC-coded, as ingest stores them).
    private func appendOneHourSession(_ log: EventLog, codec: SessionEventCodec) async throws -> (session: UUID, events: Int) {
        let session = UUID()
        let subject = SubjectHash(bytes: log.identifierHash("hour-user"))!
        let speech = try Workload.chunks(fromSpeech: work.deletingLastPathComponent().appendingPathComponent("data/speech.raw"),
                                         count: 36_000)
        var events: [SessionEvent] = []
        var at: Int64 = 1_795_300_000_000
        events.append(SessionEvent(session: session, occurredAt: at, payload: .sessionStarted(SessionStarted(subject: subject, locale: "en-GB"))))
        events.append(SessionEvent(session: session, occurredAt: at, payload: .recordingStarted(RecordingStarted(recording: "r", sampleRate: 16_000, channels: 1))))
        for index in 0..<36_000 {
            at += 100
            events.append(SessionEvent(session: session, occurredAt: at, payload: .recordingChunk(try RecordingChunk(recording: "r", index: UInt64(index), pcm: speech[index])
                .codedLosslessly(as: .sessionDefault))))
            let segment = index / 10
            let text = "sentence \(segment) of the long dictation, word \(index % 10)"
            let payload: SessionPayload = index % 10 == 9
                ? .transcriptCommitted(TranscriptCommitted(segment: "\(segment)", text: text, startMilliseconds: UInt64(segment) * 1000,
                                                           endMilliseconds: UInt64(segment) * 1000 + 990))
                : .transcriptPartial(TranscriptPartial(segment: "\(segment)", revision: UInt32(index % 10), text: text,
                                                       startMilliseconds: UInt64(segment) * 1000, endMilliseconds: UInt64(index) * 100))
            events.append(SessionEvent(session: session, occurredAt: at, payload: payload))
        }
        events.append(SessionEvent(session: session, occurredAt: at + 1, payload: .sessionEnded(SessionEnded())))
        for start in stride(from: 0, to: events.count, by: 8192) {
            try await log.append(events[start..<min(events.count, start + 8192)].map { codec.encode($0) }, to: StreamID(session))
        }
        return (session, events.count)
    }
}
