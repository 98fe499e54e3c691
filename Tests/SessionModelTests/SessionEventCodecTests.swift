import EventLog
import Foundation
import Migrations
import PropertyBased
import SessionLog
@testable import SessionModel
import Testing
import TestSupport

@Suite struct SessionEventCodecTests {
    let codec = SessionMigrations.codec
    let subject = SubjectHash(bytes: (0..<32).map { UInt8($0 * 7 % 256) })!

    /// One event of every type, built from the same generated values.
    func everyPayload(text: String, other: String, number: UInt64, confidence: Double?) -> [SessionPayload] {
        let small = UInt32(truncatingIfNeeded: number)
        return [
            .sessionStarted(SessionStarted(subject: subject, locale: other, device: text, appVersion: nil, source: .fixture)),
            .sessionPaused(SessionPaused(reason: text)),
            .sessionResumed,
            .sessionEnded(SessionEnded(reason: nil)),
            .consentGranted(ConsentChange(subject: subject, consentType: text, method: other, policyVersion: "2026-01")),
            .consentRevoked(ConsentChange(subject: subject, consentType: other, method: text)),
            .recordingStarted(RecordingStarted(recording: text, sampleRate: small, channels: 1)),
            .recordingChunk(RecordingChunk(recording: other, index: number, pcm: Array(text.utf8))),
            .recordingStopped(RecordingStopped(recording: text)),
            .transcriptPartial(TranscriptPartial(segment: other, revision: small, text: text, startMilliseconds: number,
                                                 endMilliseconds: number / 2, stability: confidence)),
            .transcriptCommitted(TranscriptCommitted(
                segment: text, text: other + text, startMilliseconds: number, endMilliseconds: number,
                confidence: confidence, speaker: text.isEmpty ? nil : text,
                words: [TranscriptWord(word: text, startMilliseconds: 1, endMilliseconds: number, confidence: confidence),
                        TranscriptWord(word: other, startMilliseconds: 0, endMilliseconds: 0)])),
            .transcriptCorrected(TranscriptCorrected(segment: text, text: other, reason: text.isEmpty ? nil : text)),
            .playbackStarted(PlaybackStarted(recording: text, positionMilliseconds: number, rate: confidence)),
            .playbackPaused(PlaybackPosition(recording: other, positionMilliseconds: number)),
            .playbackSeeked(PlaybackSeeked(recording: text, fromMilliseconds: number, toMilliseconds: 0)),
            .playbackStopped(PlaybackPosition(recording: text, positionMilliseconds: 0)),
            .playbackCompleted(PlaybackCompleted(recording: other)),
            .retentionPurged(RetentionPurged(policy: text, cutoff: -Int64(truncatingIfNeeded: number % 1_000_000), sessions: [UUID()])),
            .subjectErased(SubjectErased(subject: subject, sessions: [UUID(), UUID()], requestReference: text)),
            .exportPerformed(ExportPerformed(actor: text, format: other, sessions: [UUID()], subject: subject,
                                             purpose: number % 2 == 0 ? nil : other)),
            .retentionPolicySet(RetentionPolicy(maxAge: Int64(number % 1_000_000), partialsMaxAge: number % 2 == 0 ? 5 : nil)),
            .replayRun(ReplayRun(source: UUID(), command: text, label: text.isEmpty ? nil : other, speed: other,
                                 startedAt: -Int64(truncatingIfNeeded: number % 1_000_000), endedAt: Int64(truncatingIfNeeded: number),
                                 outcome: number % 2 == 0 ? .passed : .failed, wordErrorRate: number % 3 == 0 ? nil : confidence)),
            .holdPlaced(HoldPlaced(hold: UUID(), subject: subject, reason: text, actor: other,
                                   reviewBy: number % 2 == 0 ? nil : Int64(truncatingIfNeeded: number))),
            .holdPlaced(HoldPlaced(hold: UUID(), sessions: [UUID(), UUID()], reason: other, actor: text)),
            .holdReleased(HoldReleased(hold: UUID(), reason: text, actor: other)),
            .accessRead(AccessRead(actor: text, purpose: number % 2 == 0 ? other : nil, command: other, sessions: [UUID(), UUID()])),
            .accessPolicySet(AccessPolicy(purposeRequired: number % 2 == 0)),
            .tokenCreated(TokenCreated(token: UUID(), secretHash: Array(repeating: UInt8(truncatingIfNeeded: number), count: 32),
                                       scope: other, subjects: number % 2 == 0 ? [] : [subject],
                                       expiresAt: number % 2 == 0 ? nil : Int64(truncatingIfNeeded: number), actor: text, name: other)),
            .tokenRevoked(TokenRevoked(token: UUID(), actor: text)),
            .integrityVerified(IntegrityVerified(actor: text, passed: number % 2 == 0, recordsChecked: UInt64(truncatingIfNeeded: number),
                                                 erasedRecords: UInt64(truncatingIfNeeded: number / 3), treeSize: UInt64.max - UInt64(truncatingIfNeeded: number),
                                                 rootHash: Array(repeating: UInt8(truncatingIfNeeded: number), count: 32),
                                                 problemCount: UInt32(truncatingIfNeeded: number), firstProblem: number % 2 == 0 ? nil : other,
                                                 tookMilliseconds: UInt64(truncatingIfNeeded: number))),
            .checkpointIssued(CheckpointIssued(actor: other, treeSize: UInt64(truncatingIfNeeded: number),
                                               rootHash: Array(repeating: 0xAB, count: 32), witnesses: number % 2 == 0 ? [] : [text, other])),
        ]
    }

    func recorded(_ proposed: ProposedEvent, stream: UUID, position: UInt64 = 7) -> RecordedEvent {
        RecordedEvent(id: proposed.id, stream: StreamID(stream), streamNumber: 3, position: position, type: proposed.type,
                      data: proposed.data, recordedAtMilliseconds: 1_795_000_000_000)
    }

    @Test func everyEventTypeRoundTripsWithHostileTextAndExtremeNumbers() async {
        await propertyCheck(count: 150, input: hostileText, hostileText, milliseconds, fraction) { text, other, number, confidence in
            let payloads = everyPayload(text: text, other: other, number: number, confidence: confidence)
            #expect(Set(payloads.map(\.type)) == Set(EventType.allCases))
            for payload in payloads {
                let event = SessionEvent(session: UUID(), occurredAt: Int64(truncatingIfNeeded: number) &- 5,
                                         correlationID: text.isEmpty ? nil : UUID(), causationID: UUID(), payload: payload)
                let proposed = codec.encode(event)
                #expect(proposed.type == payload.type.rawValue)
                let decoded = try codec.decode(recorded(proposed, stream: event.session))
                #expect(decoded.event == event)
                #expect(decoded.streamNumber == 3)
                #expect(decoded.position == 7)
                #expect(decoded.recordedAt == 1_795_000_000_000)
                #expect(decoded.storedSchemaVersion == payload.type.currentSchemaVersion)
            }
        }
    }

    @Test func anEventStoredOutsideItsSessionStillNamesItsSession() throws {
        let session = UUID()
        let event = SessionEvent(session: session, occurredAt: 5, payload: .consentGranted(
            ConsentChange(subject: subject, consentType: "transcription", method: "in_app_prompt")))
        let proposed = codec.encode(event, storedOutsideSession: true)
        let consentStream = SessionStreams.consent(of: subject)
        let decoded = try codec.decode(recorded(proposed, stream: consentStream.uuid))
        #expect(decoded.event.session == session)
        // Inside its own stream the session id is not repeated in the payload.
        #expect(codec.encode(event).data.count + 18 == proposed.data.count)
    }

    @Test func theWireBytesOfAKnownEventAreStable() throws {
        let event = SessionEvent(id: UUID(), session: UUID(), occurredAt: 1_000, payload: .transcriptPartial(
            TranscriptPartial(segment: "s1", revision: 2, text: "hi", startMilliseconds: 300, endMilliseconds: 0)))
        let hex = codec.encode(event).data.map { String(format: "%02x", $0) }.joined()
        // 08 01: version 1 · 10 d0 0f: occurred-at 1000 zigzag · 42 02 "s1" · 48 02: revision 2 · 52 02 "hi" · 58 ac 02: start 300
        #expect(hex == "0801" + "10d00f" + "42027331" + "4802" + "52026869" + "58ac02")
    }

    @Test func fieldsThisBuildDoesNotKnowAreSkipped() throws {
        let event = SessionEvent(session: UUID(), occurredAt: 42, payload: .sessionEnded(SessionEnded(reason: "done")))
        var proposed = codec.encode(event)
        var extra = WireWriter()
        extra.uint(99, 12345)
        extra.string(100, "from a newer writer")
        extra.double(101, 0.5)
        proposed.data += extra.bytes
        #expect(try codec.decode(recorded(proposed, stream: event.session)).event == event)
    }

    @Test(arguments: [1, 3, 6])
    func aTruncatedPayloadIsMalformedAndNamesItsPosition(cut: Int) throws {
        let event = SessionEvent(session: UUID(), occurredAt: 42, payload: .transcriptCommitted(
            TranscriptCommitted(segment: "segment", text: "a committed sentence", startMilliseconds: 1, endMilliseconds: 2)))
        var proposed = codec.encode(event)
        proposed.data.removeLast(cut)
        let error = #expect(throws: SessionModelError.self) { try codec.decode(recorded(proposed, stream: event.session, position: 99)) }
        #expect(error?.code == .malformed)
        #expect(error?.position == 99)
        #expect(error?.message.contains("position 99") == true)
    }

    @Test func aHoldNamingBothASubjectAndSessionsOrNeitherIsMalformed() throws {
        for hold in [HoldPlaced(hold: UUID(), subject: subject, sessions: [UUID()], reason: "r", actor: "a"),
                     HoldPlaced(hold: UUID(), reason: "r", actor: "a")] {
            let event = SessionEvent(session: UUID(), occurredAt: 1, payload: .holdPlaced(hold))
            let error = #expect(throws: SessionModelError.self) { try codec.decode(recorded(codec.encode(event), stream: event.session)) }
            #expect(error?.code == .malformed && error?.message.contains("exactly one") == true)
        }
    }

    @Test func aPayloadFromANewerSchemaIsRefused() throws {
        let event = SessionEvent(session: UUID(), occurredAt: 1, payload: .sessionResumed)
        var proposed = codec.encode(event)
        proposed.data = try SessionEventCodec.settingSchemaVersion(2, in: proposed.data)
        let error = #expect(throws: SessionModelError.self) { try codec.decode(recorded(proposed, stream: event.session)) }
        #expect(error?.code == .newerSchema)
    }

    @Test func anUnknownEventTypeIsReportedAsSuch() throws {
        let proposed = ProposedEvent(type: "dictation.teleported", data: [])
        let error = #expect(throws: SessionModelError.self) { try codec.decode(recorded(proposed, stream: UUID())) }
        #expect(error?.code == .unknownType)
    }

    @Test func anOlderSchemaIsUpcastThroughTheRegisteredUpcaster() throws {
        // Version 0 of transcript.partial kept the text in field 20; version 1 keeps it in field 10.
        let upcaster = SessionEventCodec.Upcaster(type: .transcriptPartial, fromVersion: 0) { bytes in
            var writer = WireWriter()
            try bytes.withUnsafeBytes { raw in
                var reader = WireReader(raw)
                while let (field, type) = try reader.nextField() {
                    if field == 20 { writer.string(10, try reader.text(type, field)) } else if field == 8 {
                        writer.string(8, try reader.text(type, field))
                    } else { try reader.skip(type) }
                }
            }
            return writer.bytes
        }
        var old = WireWriter()
        old.string(8, "seg")
        old.string(20, "old text")
        let proposed = ProposedEvent(type: EventType.transcriptPartial.rawValue, data: old.bytes)
        let decoded = try SessionEventCodec(upcasters: [upcaster]).decode(recorded(proposed, stream: UUID()))
        #expect(decoded.storedSchemaVersion == 0)
        guard case .transcriptPartial(let partial) = decoded.event.payload else { Issue.record("wrong payload"); return }
        #expect(partial.text == "old text")
        #expect(partial.segment == "seg")
        // Without the upcaster the old payload cannot be read.
        #expect(throws: SessionModelError.self) { try SessionEventCodec(upcasters: []).decode(recorded(proposed, stream: UUID())) }
    }

    @Test func consentStreamsAreStablePerSubjectAndNeverLookLikeSessions() {
        let stream = SessionStreams.consent(of: subject)
        #expect(stream == SessionStreams.consent(of: subject))
        #expect(stream != SessionStreams.consent(of: SubjectHash(bytes: Array(repeating: 9, count: 32))!))
        let bytes = withUnsafeBytes(of: stream.uuid.uuid) { Array($0) }
        #expect(bytes[6] >> 4 == 8)
        #expect(UUID().uuid.6 >> 4 == 4)
    }

    @Test func subjectHashesPrintAndParseAsHex() {
        #expect(subject.description.count == 64)
        #expect(SubjectHash(hex: subject.description) == subject)
        #expect(SubjectHash(hex: "zz") == nil)
        #expect(SubjectHash(bytes: [1, 2]) == nil)
    }
}

@Suite struct SessionDictionarySamplesTests {
    @Test func theTrainingSamplesAreTheSameOnEveryRunAndCoverTheEventTypes() throws {
        let first = SessionDictionary.samples(count: 2000)
        let again = SessionDictionary.samples(count: 2000)
        #expect(first == again)
        #expect(Set(first.map(\.type)).count >= 10)
        // The process trains once and keeps the result: training again from the samples gives the same bytes.
        #expect(try SessionDictionary.train() == EventLog.trainDictionary(samples: SessionDictionary.samples()))
    }
}
