import Audio
import EventLog
import Foundation
import Ingest
import Migrations
import Projections
@testable import Replay
import SessionAudio
import SessionLog
import SessionModel
import Testing
import TestSupport

/// A recorder for a committed fixture, with a fixed subject hasher (no store needed).
func recorder(_ name: String, seed: UInt64 = 1, session: UUID? = nil) throws -> SessionRecorder {
    let audio = try AudioFile.read(RepositoryFixtures.audioPath(name))
    let script = try FixtureScript.load(RepositoryFixtures.audioPath(name, "json"))
    return SessionRecorder(audio: audio, script: script, options: .init(session: session, seed: seed)) { raw in
        SubjectHash(bytes: Array(raw.utf8.prefix(32)) + Array(repeating: 0, count: max(0, 32 - raw.utf8.count)))!
    }
}

@Suite struct SessionRecorderTests {
    @Test func theSameInputsAndSeedGiveByteIdenticalEventsAndAnotherSeedDoesNot() throws {
        let codec = SessionMigrations.codec
        let first = try recorder("short-dictation").events()
        let again = try recorder("short-dictation").events()
        #expect(first.map { codec.encode($0) } == again.map { codec.encode($0) })
        #expect(first.map(\.id) == again.map(\.id))
        let other = try recorder("short-dictation", seed: 2).events()
        #expect(other.first?.session != first.first?.session)
        let partials = { (events: [SessionEvent]) in events.compactMap { event -> String? in
            if case .transcriptPartial(let partial) = event.payload { partial.text } else { nil }
        } }
        #expect(other.map { codec.encode($0).data } != first.map { codec.encode($0).data })
        #expect(partials(other) != partials(first) || other.map(\.occurredAt) != first.map(\.occurredAt))
    }

    @Test func aSessionRunsFromStartThroughConsentRecordingTranscriptAndPlaybackToEnd() throws {
        let recorder = try recorder("paused-resumed")
        let events = try recorder.events()
        let types = events.map(\.type)
        #expect(Array(types.prefix(4)) == [.sessionStarted, .consentGranted, .consentGranted, .recordingStarted])
        #expect(Array(types.suffix(3)) == [.playbackStarted, .playbackCompleted, .sessionEnded])
        #expect(types.firstIndex(of: .recordingStopped)! < types.firstIndex(of: .playbackStarted)!)
        #expect(types.filter { $0 == .sessionPaused }.count == 1)
        #expect(types.filter { $0 == .sessionResumed }.count == 1)
        #expect(types.filter { $0 == .transcriptCommitted }.count == recorder.script.segments.count)
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.occurredAt <= $1.occurredAt })
        #expect(events.first?.occurredAt == SessionRecorder.Options.defaultStart)
        // Every chunk arrives when its audio has been heard; together they are the audio.
        var pcm: [UInt8] = []
        for event in events { if case .recordingChunk(let chunk) = event.payload { pcm += try chunk.pcm() } }
        #expect(Chunking.samples(fromPCM: pcm) == recorder.audio.samples)
    }

    @Test func partialsGrowWordByWordAndTheCommitIsTheScriptsText() throws {
        let recorder = try recorder("two-speakers", seed: 3)
        let events = try recorder.events()
        for (index, segment) in recorder.script.segments.enumerated() {
            let id = "segment-\(index + 1)"
            let partials = events.compactMap { event -> TranscriptPartial? in
                if case .transcriptPartial(let partial) = event.payload, partial.segment == id { partial } else { nil }
            }
            let words = segment.text.split(separator: " ")
            #expect(partials.count == words.count)
            #expect(partials.map(\.revision) == (0..<UInt32(words.count)).map { $0 })
            #expect(partials.last?.text == segment.text)  // the last partial is always right
            let commit = events.first { if case .transcriptCommitted(let c) = $0.payload { c.segment == id } else { false } }
            guard case .transcriptCommitted(let committed)? = commit?.payload else { Issue.record("no commit of \(id)"); continue }
            #expect(committed.text == segment.text)
            #expect(committed.speaker == segment.speaker)
            #expect(committed.words.map(\.word) == words.map(String.init))
            #expect(commit!.occurredAt > SessionRecorder.Options.defaultStart + Int64(segment.endMilliseconds))
        }
    }

    @Test func somePartialsMishearAWordThatTheNextPartialCorrects() throws {
        var misheard = 0
        for name in RepositoryFixtures.speechFixtures {
            let recorder = try recorder(name, seed: 7)
            let events = try recorder.events()
            for (index, segment) in recorder.script.segments.enumerated() {
                let texts = events.compactMap { event -> String? in
                    if case .transcriptPartial(let p) = event.payload, p.segment == "segment-\(index + 1)" { p.text } else { nil }
                }
                for (position, text) in texts.enumerated() where !segment.text.hasPrefix(text) {
                    misheard += 1
                    // The last partial is always right, so there is a next one; it has the misheard word right.
                    let wordCount = text.split(separator: " ").count
                    let next = texts[position + 1].split(separator: " ").prefix(wordCount)
                    #expect(Array(next) == Array(segment.text.split(separator: " ").prefix(wordCount)), "\(text) was not corrected")
                }
            }
        }
        #expect(misheard > 0)
    }

    @Test func aScriptThatIsNotOneIsRefusedNamingWhatAndWhere() throws {
        let directory = Scratch.url("scripts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // (file, what the message names, whether the JSON decoder refused it: then its error is the cause)
        let cases = [
            ("{}", "segments is missing", true),
            (#"{"segments":[{"text":"hi","start_ms":"soon","end_ms":5}]}"#, "segments[0].start_ms has the wrong type", true),
            (#"{"segments":[{"text":"hi","start_ms":9,"end_ms":5}]}"#, "segments[0].end_ms (5) is not after start_ms (9)", false),
            (#"{"segments":[{"text":"  ","start_ms":0,"end_ms":5}]}"#, "segments[0].text is empty", false),
            ("not json", "not valid JSON", true),
        ]
        for (index, (text, expected, decoderRefused)) in cases.enumerated() {
            let path = directory.appendingPathComponent("\(index).json").path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: FixtureError.self) { try FixtureScript.load(path) }
            #expect(error?.message.contains(path) == true)
            #expect(error?.path == path)
            #expect(error?.code == .invalidScript)
            #expect(error?.message.contains(expected) == true, "\(error?.message ?? "") lacks \(expected)")
            #expect((error?.underlying is DecodingError) == decoderRefused)
            #expect(error.map { String(reflecting: $0).contains("caused by") } == decoderRefused)
        }
        let missing = directory.appendingPathComponent("absent.json").path
        let unreadable = #expect(throws: FixtureError.self) { try FixtureScript.load(missing) }
        #expect(unreadable?.code == .unreadable)
        #expect(unreadable?.underlying != nil)
    }

    @Test func recordingTheSameFixtureTwiceStoresItOnce() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let events = try recorder("short-dictation").events()
            let first = try await SessionIngest(log: log).ingest(events: events)
            #expect(first.appended == events.count)
            let second = try await SessionIngest(log: log).ingest(events: events)
            #expect(second.appended == 0)
            #expect(second.duplicates == events.count)
        }
    }
}
