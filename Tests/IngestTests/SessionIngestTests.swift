import EventLog
import Foundation
import Ingest
import Migrations
import SessionAudio
import SessionLog
import SessionModel
import Testing
import TestSupport

@Suite struct SessionIngestTests {
    static let session = "3f2c8a1e-5b7d-4c9e-8f10-2a3b4c5d6e7f"
    static let other = "9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d"

    /// A complete small session, one line per event type a client sends.
    static func validFile(session: String = session, subject: String = "user-4711") -> String {
        let pcm = Data((0..<320).map { UInt8(truncatingIfNeeded: $0) }).base64EncodedString()
        return """
        {"type":"session.started","session":"\(session)","at":"2026-11-21T10:00:00.000Z","subject":"\(subject)","locale":"en-GB","device":"Pixel 9","app_version":"4.2.0"}
        {"type":"consent.granted","session":"\(session)","at":"2026-11-21T10:00:00.100Z","subject":"\(subject)","consent_type":"audio_recording","method":"in_app_prompt","policy_version":"2026-01"}
        {"type":"consent.granted","session":"\(session)","at":"2026-11-21T10:00:00.150Z","subject":"\(subject)","consent_type":"transcription","method":"in_app_prompt"}
        {"type":"recording.started","session":"\(session)","at":"2026-11-21T10:00:00.200Z","recording":"r1","sample_rate":16000,"channels":1}
        {"type":"recording.chunk","session":"\(session)","at":"2026-11-21T10:00:00.300Z","recording":"r1","index":0,"pcm":"\(pcm)"}
        {"type":"transcript.partial","session":"\(session)","at":"2026-11-21T10:00:01.000Z","segment":1,"revision":0,"text":"please","start_ms":0,"end_ms":400}
        {"type":"transcript.committed","session":"\(session)","at":"2026-11-21T10:00:02.000Z","segment":1,"text":"Please call me.","start_ms":0,"end_ms":1200,"confidence":0.93,"speaker":"doctor","words":[{"word":"Please","start_ms":0,"end_ms":400,"confidence":0.9},{"word":"call","start_ms":400,"end_ms":800},{"word":"me","start_ms":800,"end_ms":1200}]}
        {"type":"session.paused","session":"\(session)","at":"2026-11-21T10:00:03.000Z"}
        {"type":"session.resumed","session":"\(session)","at":"2026-11-21T10:00:30.000Z"}
        {"type":"recording.stopped","session":"\(session)","at":"2026-11-21T10:00:31.000Z","recording":"r1"}
        {"type":"playback.started","session":"\(session)","at":"2026-11-21T10:00:32.000Z","recording":"r1","position_ms":0,"rate":1.5}
        {"type":"playback.seeked","session":"\(session)","at":"2026-11-21T10:00:33.000Z","recording":"r1","from_ms":100,"to_ms":900}
        {"type":"playback.paused","session":"\(session)","at":"2026-11-21T10:00:34.000Z","recording":"r1","position_ms":950}
        {"type":"playback.stopped","session":"\(session)","at":"2026-11-21T10:00:35.000Z","recording":"r1","position_ms":990}
        {"type":"playback.completed","session":"\(session)","at":"2026-11-21T10:00:36.000Z","recording":"r1"}
        {"type":"consent.revoked","session":"\(session)","at":"2026-11-21T10:00:37.000Z","subject":"\(subject)","consent_type":"audio_recording","method":"settings_screen"}
        {"type":"session.ended","session":"\(session)","at":"2026-11-21T10:00:38.000Z","reason":"user"}

        """
    }

    func decoded(_ log: EventLog, _ stream: StreamID) throws -> [RecordedSessionEvent] {
        try log.readStream(stream).map { try SessionMigrations.codec.decode($0) }
    }

    @Test func aValidFileIsAppendedToTheSessionAndConsentToTheSubjectsTrail() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let report = try await SessionIngest(log: log).ingest(Data(Self.validFile().utf8))
            #expect(report == IngestReport(lines: 17, appended: 17, duplicates: 0, sessions: 1))
            let events = try decoded(log, StreamID(UUID(uuidString: Self.session)!))
            #expect(events.map(\.event.type.rawValue).first == "session.started")
            try #require(events.count == 17)
            #expect(events[0].event.occurredAt == 1_795_255_200_000)  // date -u -d 2026-11-21T10:00:00Z +%s
            guard case .transcriptCommitted(let committed) = events[6].event.payload else { Issue.record("not a commit"); return }
            #expect(committed.text == "Please call me.")
            #expect(committed.segment == "1")
            #expect(committed.words.map(\.word) == ["Please", "call", "me"])
            #expect(committed.words[1].confidence == nil)
            guard case .recordingChunk(let chunk) = events[4].event.payload else { Issue.record("not a chunk"); return }
            #expect(try chunk.pcm() == (0..<320).map { UInt8(truncatingIfNeeded: $0) })

            let subject = try #require(SubjectHash(bytes: log.identifierHash("user-4711")))
            let trail = try decoded(log, SessionStreams.consent(of: subject))
            #expect(trail.map(\.event.type) == [.consentGranted, .consentGranted, .consentRevoked])
            #expect(trail.allSatisfy { $0.event.session == UUID(uuidString: Self.session) })
            #expect(try log.streamMetadata(SessionStreams.consent(of: subject))?.keyID == 1)  // the audit key
        }
    }

    @Test func aFileWithBadLinesAppendsNothingAndNamesEveryProblem() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let file = Self.validFile() + """
            {"type":"transcript.partial","session":"\(Self.session)","at":"2026-11-21T10:00:01Z","segment":2,"revision":true,"text":"x","start_ms":5,"end_ms":1}
            not json at all
            {"type":"recording.chunk","session":"\(Self.session)","at":"yesterday","recording":"r1","index":1,"pcm":"AAA"}
            {"type":"dictation.teleported","session":"not-a-uuid","at":"2026-11-21T10:00:01Z","colour":"blue"}
            {"type":"subject.erased","session":"\(Self.session)","at":"2026-11-21T10:00:01Z"}
            [1, 2, 3]
            """
            let failure = await #expect(throws: IngestFailure.self) { try await SessionIngest(log: log).ingest(Data(file.utf8)) }
            let problems = failure?.problems ?? []
            let described = problems.map(\.description)
            #expect(described.contains("line 18, field \"revision\": must be an integer"))
            #expect(described.contains("line 18, field \"end_ms\": is 1, before start_ms 5"))
            #expect(described.contains("line 19: is not valid JSON: unexpected character at byte 1"))
            #expect(described.contains { $0.hasPrefix("line 20, field \"at\": must be an RFC 3339 UTC time") })
            #expect(described.contains("line 20, field \"pcm\": is not valid base64"))
            #expect(described.contains { $0.hasPrefix("line 21, field \"type\": \"dictation.teleported\" is not an event type") })
            #expect(described.contains { $0.hasPrefix("line 21, field \"session\": must be a UUID") })
            #expect(described.contains("line 21, field \"colour\": is not a field of this event type"))
            #expect(described.contains { $0.hasPrefix("line 22, field \"type\": \"subject.erased\" is written by the store") })
            #expect(described.contains("line 23: is not a JSON object"))
            #expect(problems.map(\.line) == problems.map(\.line).sorted())
            #expect(try log.eventCount() == 0)
        }
    }

    @Test func aSessionsLabelsAreKeptAndLabelsPastTheRulesAreRefusedNamingTheField() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let labelled = #"{"type":"session.started","session":"\#(Self.session)","at":"2026-11-21T10:00:00Z","subject":"u","locale":"en","labels":{"suite":"nightly","condition":"noise:white:10"}}"#
            _ = try await SessionIngest(log: log).ingest(Data((labelled + "\n").utf8))
            let started = try decoded(log, StreamID(UUID(uuidString: Self.session)!)).first?.event.payload
            guard case .sessionStarted(let value) = started else { Issue.record("not a start: \(String(describing: started))"); return }
            #expect(value.labels == ["suite": "nightly", "condition": "noise:white:10"])

            let other = "5f0c3d2a-8b1e-4c7d-9a6f-112233445566"
            let bad = [#"{"Team":"x"}"#, #"{"team":7}"#, #"{"team":""}"#, #"["team"]"#,
                       "{" + (0...16).map { #""l\#($0)":"v""# }.joined(separator: ",") + "}"]
            let file = bad.map { #"{"type":"session.started","session":"\#(other)","at":"2026-11-21T10:00:00Z","subject":"u","locale":"en","labels":\#($0)}"# }
                .joined(separator: "\n")
            let failure = await #expect(throws: IngestFailure.self) { try await SessionIngest(log: log).ingest(Data(file.utf8)) }
            let described = failure?.problems.map(\.description) ?? []
            #expect(described == [
                #"line 1, field "labels": label name "Team" must hold only a-z, 0-9, _, - and ."#,
                #"line 2, field "labels": member "team" must be a string"#,
                #"line 3, field "labels": label team's value must be 1 to 256 bytes"#,
                #"line 4, field "labels": must be an object of strings"#,
                #"line 5, field "labels": holds 17 labels; a session has at most 16"#,
            ], "\(described)")
            #expect(try log.eventCount() == 1, "nothing of the rejected file")
        }
    }

    @Test func resendingAFileAppendsNothingNewEvenWithoutEventIds() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let ingest = SessionIngest(log: log)
            _ = try await ingest.ingest(Data(Self.validFile().utf8))
            let again = try await ingest.ingest(Data(Self.validFile().utf8))
            #expect(again.appended == 0)
            #expect(again.duplicates == 17)
            #expect(try log.eventCount() == 17 + 3)  // the session and the three consent copies
        }
    }

    @Test func aLaterFileContinuesAStoredSessionButANewSessionMustStart() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let ingest = SessionIngest(log: log)
            _ = try await ingest.ingest(Data(Self.validFile().utf8))
            let continuation = """
            {"type":"session.resumed","session":"\(Self.session)","at":"2026-11-21T11:00:00Z"}
            {"type":"transcript.committed","session":"\(Self.session)","at":"2026-11-21T11:00:05Z","segment":"2","text":"Later.","start_ms":3600000,"end_ms":3601000}
            """
            #expect(try await ingest.ingest(Data(continuation.utf8)).appended == 2)
            let unstarted = """
            {"type":"transcript.partial","session":"\(Self.other)","at":"2026-11-21T11:00:00Z","segment":"1","revision":0,"text":"hi","start_ms":0,"end_ms":1}
            """
            let failure = await #expect(throws: IngestFailure.self) { try await ingest.ingest(Data(unstarted.utf8)) }
            #expect(failure?.problems.first?.reason.contains("not session.started") == true)
        }
    }

    @Test func textSurvivesExactly() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let texts = ["emoji 👩🏽‍⚕️🎙️ and ZWJ", "עברית ومرحبا mixed", "e\u{301} combining \u{0308}", "comma, \"quotes\", \\ and\nnew\r\nlines\ttabs",
                         String(repeating: "long segment ", count: 154)]
            var lines = [#"{"type":"session.started","session":"\#(Self.session)","at":"2026-11-21T10:00:00Z","subject":"s","locale":"ar"}"#]
            for (index, text) in texts.enumerated() {
                let json = String(decoding: try JSONSerialization.data(withJSONObject: [
                    "type": "transcript.committed", "session": Self.session, "at": "2026-11-21T10:00:0\(index + 1)Z",
                    "segment": "s\(index)", "text": text, "start_ms": index, "end_ms": index + 1,
                ]), as: UTF8.self)
                lines.append(json)
            }
            _ = try await SessionIngest(log: log).ingest(Data(lines.joined(separator: "\n").utf8))
            let stored = try decoded(log, StreamID(UUID(uuidString: Self.session)!)).compactMap { event -> String? in
                if case .transcriptCommitted(let committed) = event.event.payload { return committed.text }
                return nil
            }
            #expect(stored == texts)
            #expect((texts.last?.count ?? 0) > 2000)
        }
    }

    @Test func rawSubjectIdsNeverReachTheStoreFiles() async throws {
        try await withTemporaryStore { store in
            let marker = "subject-MARKER-8a7b6c"
            do {
                let log = try store.create()
                _ = try await SessionIngest(log: log).ingest(Data(Self.validFile(subject: marker).utf8))
                try log.close()
            }
            for (file, contents) in try store.storedContents() {
                #expect(contents.range(of: Data(marker.utf8)) == nil, "the raw subject id is in \(file)")
            }
        }
    }

    /// 100 ms of a tone with a little noise, as the base64 of little-endian int16 samples.
    static func speechLikePCM(frames: Int, channels: Int = 1, seed: Int = 1) -> [UInt8] {
        var bytes: [UInt8] = []
        for index in 0..<(frames * channels) {
            let sample = Int16(clamping: Int(6000 * sin(Double(index + seed) / 9)) + (index * 7919 + seed) % 61 - 30)
            withUnsafeBytes(of: sample.littleEndian) { bytes += $0 }
        }
        return bytes
    }

    @Test func audioChunksAreStoredAsFLACInTheirRecordingsFormatAndReadBackExactly() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let session = UUID().uuidString.lowercased()
            let stereo = Self.speechLikePCM(frames: 4410, channels: 2)
            let mono = Self.speechLikePCM(frames: 1601, seed: 5)
            let file = """
            {"type":"session.started","session":"\(session)","at":"2026-11-21T10:00:00Z","subject":"s","locale":"en"}
            {"type":"recording.started","session":"\(session)","at":"2026-11-21T10:00:00Z","recording":"st","sample_rate":44100,"channels":2}
            {"type":"recording.chunk","session":"\(session)","at":"2026-11-21T10:00:00.100Z","recording":"st","index":0,"pcm":"\(Data(stereo).base64EncodedString())"}
            {"type":"recording.started","session":"\(session)","at":"2026-11-21T10:00:01Z","recording":"mo","sample_rate":16000,"channels":1}
            """
            _ = try await SessionIngest(log: log).ingest(Data(file.utf8))
            // A later file continues the mono recording: its format comes from the store.
            let more = #"{"type":"recording.chunk","session":"\#(session)","at":"2026-11-21T10:00:02Z","recording":"mo","index":0,"pcm":"\#(Data(mono).base64EncodedString())"}"#
            _ = try await SessionIngest(log: log).ingest(Data(more.utf8))
            let chunks = try decoded(log, StreamID(UUID(uuidString: session)!)).compactMap { event -> RecordingChunk? in
                if case .recordingChunk(let chunk) = event.event.payload { chunk } else { nil }
            }
            try #require(chunks.count == 2)
            #expect(chunks.map(\.frames) == [4410, 1601])
            #expect(chunks.allSatisfy { if case .flac = $0.audio { true } else { false } })
            #expect(chunks.allSatisfy { $0.storedAudioBytes < 3 * (try! $0.pcm()).count / 4 })
            #expect(try chunks[0].pcm() == stereo)
            #expect(try chunks[1].pcm() == mono)
        }
    }

    @Test func aChunkThatIsNotWholeFramesOrHasNoRecordingIsRefused() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let session = UUID().uuidString.lowercased()
            let odd = Data(Self.speechLikePCM(frames: 3)).base64EncodedString()  // 3 samples: not whole stereo frames
            let file = """
            {"type":"session.started","session":"\(session)","at":"2026-11-21T10:00:00Z","subject":"s","locale":"en"}
            {"type":"recording.started","session":"\(session)","at":"2026-11-21T10:00:00Z","recording":"st","sample_rate":44100,"channels":2}
            {"type":"recording.chunk","session":"\(session)","at":"2026-11-21T10:00:00.100Z","recording":"st","index":0,"pcm":"\(odd)"}
            {"type":"recording.chunk","session":"\(session)","at":"2026-11-21T10:00:00.200Z","recording":"nowhere","index":0,"pcm":"AAAAAA=="}
            {"type":"recording.chunk","session":"\(session)","at":"2026-11-21T10:00:00.300Z","recording":"later","index":0,"pcm":"AAAAAA=="}
            {"type":"recording.started","session":"\(session)","at":"2026-11-21T10:00:00.400Z","recording":"later","sample_rate":16000,"channels":1}
            """
            let failure = await #expect(throws: IngestFailure.self) { try await SessionIngest(log: log).ingest(Data(file.utf8)) }
            #expect(failure?.problems.map(\.description) == [
                "line 3, field \"pcm\": 6 bytes of PCM are not whole frames of 2 16-bit channels",
                "line 4, field \"recording\": recording \"nowhere\" has no recording.started before it in this file or in the store",
                "line 5, field \"recording\": recording \"later\" has no recording.started before it in this file or in the store",
            ])
            #expect(try log.eventCount() == 0)
        }
    }

    @Test func eventsBuiltInCodeMayBringFLACChunksButOnlyInTheirRecordingsFormat() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let session = UUID()
            let subject = try #require(SubjectHash(bytes: log.identifierHash("s")))
            let mono = try RecordingChunk(recording: "r", index: 0, pcm: Self.speechLikePCM(frames: 1600))
                .codedLosslessly(as: .sessionDefault)
            func events(_ rate: UInt32, _ channels: UInt32) -> [SessionEvent] {
                [SessionEvent(session: session, occurredAt: 0, payload: .sessionStarted(SessionStarted(subject: subject, locale: "en"))),
                 SessionEvent(session: session, occurredAt: 1, payload: .recordingStarted(RecordingStarted(recording: "r", sampleRate: rate, channels: channels))),
                 SessionEvent(session: session, occurredAt: 2, payload: .recordingChunk(mono))]
            }
            let failure = await #expect(throws: IngestFailure.self) { try await SessionIngest(log: log).ingest(events: events(44_100, 2)) }
            #expect(failure?.problems.map(\.description) == [
                "line 3, field \"pcm\": the FLAC audio is not 1600 frames of 44100 Hz, 2 channels, 16-bit, as its recording and frames field say",
            ])
            #expect(try log.eventCount() == 0)
            #expect(try await SessionIngest(log: log).ingest(events: events(16_000, 1)).appended == 3)
            let stored = try decoded(log, StreamID(session)).compactMap { event -> RecordingChunk? in
                if case .recordingChunk(let chunk) = event.event.payload { chunk } else { nil }
            }
            #expect(stored == [mono])
            #expect(try stored.first?.pcm() == Self.speechLikePCM(frames: 1600))
        }
    }

    /// Lines of a session of `segments` committed segments, each with an id of its own.
    static func segmentLines(session: String, segments: Range<Int>) -> [String] {
        segments.map { segment in
            #"{"type":"transcript.committed","session":"\#(session)","at":"2026-11-21T10:00:02.000Z","id":"\#(String(format: "00000000-0000-4000-8000-%012x", segment))","segment":"\#(segment)","text":"segment \#(segment)","start_ms":0,"end_ms":1}"#
        }
    }

    @Test func aFileOfManyWindowsIsOneTransactionAndDuplicatesAcrossWindowsAreLeftOut() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let session = UUID().uuidString.lowercased()
            let started = #"{"type":"session.started","session":"\#(session)","at":"2026-11-21T10:00:00Z","subject":"s","locale":"en"}"#
            // 10,000 segments (three windows of lines), then the first 100 again: sent twice in one file.
            let lines = [started] + Self.segmentLines(session: session, segments: 0..<10_000) + Self.segmentLines(session: session, segments: 0..<100)
            var bad = lines
            bad.append(#"{"type":"session.ended","session":"\#(session)","at":"not a time"}"#)
            let failure = await #expect(throws: IngestFailure.self) { try await SessionIngest(log: log).ingest(Data(bad.joined(separator: "\n").utf8)) }
            #expect(failure?.problems.map(\.line) == [10_102])
            #expect(try log.eventCount() == 0, "the windows appended before the bad line are not visible")

            let report = try await SessionIngest(log: log).ingest(Data(lines.joined(separator: "\n").utf8))
            #expect(report == IngestReport(lines: 10_101, appended: 10_001, duplicates: 100, sessions: 1))
            #expect(try log.streamMetadata(StreamID(UUID(uuidString: session)!))?.version == 10_001)
            #expect(try log.verify().isIntact)
        }
    }

    @Test func aFileWithThousandsOfBadLinesListsTheFirstThousandAndCountsTheRest() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let lines = (0..<1_500).map { _ in "not json" }
            let failure = await #expect(throws: IngestFailure.self) { try await SessionIngest(log: log).ingest(Data(lines.joined(separator: "\n").utf8)) }
            #expect(failure?.problems.count == SessionIngest.maximumListedProblems)
            #expect(failure?.problems.last?.line == 1_000)
            #expect(failure?.unlisted == 500)
            #expect(failure?.count == 1_500)
        }
    }
}
