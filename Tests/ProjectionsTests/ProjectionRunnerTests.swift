@testable import EventLog
import Foundation
import Ingest
import Migrations
@testable import Projections
import SessionLog
import SessionModel
import Testing
import TestSupport

@Suite struct ProjectionRunnerTests {
    /// NDJSON for `count` sessions, each started, consented, with `segments` commits.
    static func sessionsFile(_ sessions: [UUID], segments: Int, from: Int = 0, started: Bool = true) -> Data {
        var lines: [String] = []
        for (index, session) in sessions.enumerated() {
            let id = session.uuidString.lowercased()
            if started {
                lines.append(#"{"type":"session.started","session":"\#(id)","at":"2026-11-21T10:00:0\#(index % 10).000Z","subject":"user-\#(index % 3)","locale":"en"}"#)
                lines.append(#"{"type":"consent.granted","session":"\#(id)","at":"2026-11-21T10:00:0\#(index % 10).100Z","subject":"user-\#(index % 3)","consent_type":"transcription","method":"in_app_prompt"}"#)
            }
            for segment in from..<(from + segments) {
                lines.append(#"{"type":"transcript.committed","session":"\#(id)","at":"2026-11-21T10:01:\#(10 + segment).000Z","segment":"\#(segment)","text":"two words","start_ms":\#(segment * 1000),"end_ms":\#(segment * 1000 + 900)}"#)
            }
        }
        return Data(lines.joined(separator: "\n").utf8)
    }

    @Test func aSessionsRunsAreFoundByItsIdAlsoInAStoreWhoseViewsPredateTheRunsView() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let sources = [UUID(), UUID()]
            _ = try await SessionIngest(log: log).ingest(Self.sessionsFile(sources, segments: 1))
            var runsOf: [UUID: Set<UUID>] = [:]
            for (index, source) in [sources[0], sources[0], sources[1]].enumerated() {
                let run = UUID(), at: Int64 = 1_795_255_200_000 + Int64(index)
                let started = SessionEvent(session: run, occurredAt: at, payload: .replayRun(ReplayRun(source: source, command: "echo", speed: "max",
                                                                                                        startedAt: at, endedAt: at)))
                try await log.append([SessionMigrations.codec.encode(started)], to: SessionStreams.session(run))
                runsOf[source, default: []].insert(run)
            }
            func check(_ runner: ProjectionRunner) throws {
                for source in sources {
                    let runs = try runner.runs(of: source)
                    #expect(Set(runs.map(\.session)) == runsOf[source] && runs.count == runsOf[source]!.count)
                    #expect(runs.allSatisfy { $0.runOf == source })
                }
                #expect(try runner.runs(of: UUID()).isEmpty)
            }
            let runner = ProjectionRunner(log: log)
            try runner.catchUp()
            try check(runner)
            // Views written before the runs view existed: the next catch-up folds it from the log's start.
            try log.dropView(ProjectionRunner.runsView)
            let later = ProjectionRunner(log: log)
            #expect(try later.catchUp() > 0)
            try check(later)
            try later.rebuild()
            try check(later)
        }
    }

    @Test func catchingUpFoldsOnlyNewEventsAndRebuildingGivesTheSameList() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let sessions = (0..<12).map { _ in UUID() }
            _ = try await SessionIngest(log: log).ingest(Self.sessionsFile(sessions, segments: 3))
            let runner = ProjectionRunner(log: log)
            try runner.catchUp()
            #expect(try runner.sessions().count == 12)
            #expect(try runner.catchUp() == 0)  // nothing new: nothing folded twice

            _ = try await SessionIngest(log: log).ingest(Self.sessionsFile(Array(sessions.prefix(4)), segments: 2, from: 3, started: false))
            #expect(try runner.catchUp() == 8)
            let caughtUp = try runner.sessions().sorted { $0.session.uuidString < $1.session.uuidString }
            #expect(caughtUp.filter { $0.segments == 5 }.count == 4)
            #expect(caughtUp.filter { $0.segments == 3 }.count == 8)
            #expect(caughtUp.allSatisfy { $0.words == $0.segments * 2 })
            #expect(caughtUp.allSatisfy { $0.consent == ["transcription": true] })  // consent copies not counted twice
            for summary in caughtUp { #expect(try runner.session(summary.session) == summary, "one session's row by its id") }
            #expect(try runner.session(UUID()) == nil)

            try runner.rebuild()
            let rebuilt = try runner.sessions().sorted { $0.session.uuidString < $1.session.uuidString }
            #expect(rebuilt == caughtUp)
        }
    }

    @Test(arguments: [(1, 1), (5, 3), (7, 20), (64, 1000)])
    func foldingInSmallBatchesAndCommitsWhileReadingAheadGivesTheSameViewsAsOneBatch(batchSize: Int, eventsPerCommit: Int) async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let sessions = (0..<9).map { _ in UUID() }
            _ = try await SessionIngest(log: log).ingest(Self.sessionsFile(sessions, segments: 4))
            _ = try await SessionIngest(log: log).ingest(Self.sessionsFile(Array(sessions.prefix(3)), segments: 3, from: 4, started: false))
            let whole = ProjectionRunner(log: log)
            #expect(try whole.catchUp() == 9 * 7 + 9)
            let expectedSessions = try whole.sessions()
            let expectedTranscripts = try sessions.map { try whole.transcript(of: $0) }
            let expectedTrail = try whole.consentTrail(of: SubjectHash(bytes: log.identifierHash("user-1"))!)

            let batched = ProjectionRunner(log: log, batchSize: batchSize, eventsPerCommit: eventsPerCommit)
            #expect(try batched.rebuild() == 9 * 7 + 9)
            #expect(try batched.sessions() == expectedSessions)
            #expect(try sessions.map { try batched.transcript(of: $0) } == expectedTranscripts)
            #expect(try batched.consentTrail(of: SubjectHash(bytes: log.identifierHash("user-1"))!) == expectedTrail)
            #expect(expectedTrail.entries.count == 3)
        }
    }

    @Test func aCopyOfTheSessionListFoldedInMemoryAgreesWithThePersistedListAtEveryStep() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let sessions = (0..<6).map { _ in UUID() }
            let runner = ProjectionRunner(log: log, batchSize: 4)
            var copy: [UUID: SessionSummary] = [:]
            var position: UInt64 = 0
            for step in 0..<3 {
                let file = step == 0 ? Self.sessionsFile(sessions, segments: 2)
                    : Self.sessionsFile(Array(sessions.prefix(3 * step)), segments: 2, from: 2 * step, started: false)
                _ = try await SessionIngest(log: log).ingest(file)
                let (rows, through) = try runner.foldSessionList(from: position) { copy[$0] }
                #expect(through == (try log.eventCount()))
                #expect(!rows.isEmpty && rows.count <= sessions.count)
                copy.merge(rows) { $1 }
                position = through
                try runner.catchUp()
                let persisted = try runner.sessions()
                #expect(persisted.count == copy.count)
                for summary in persisted { #expect(copy[summary.session] == summary, "step \(step): the copy's row of \(summary.session)") }
            }
            #expect(try runner.foldSessionList(from: position) { copy[$0] }.rows.isEmpty, "nothing new: nothing folded")
        }
    }

    @Test func aSummaryRoundTripsThroughItsRow() throws {
        var summary = SessionSummary(session: UUID())
        summary.subject = SubjectHash(bytes: Array(repeating: 3, count: 32))
        summary.locale = "ar-EG"
        summary.status = .paused
        summary.startedAt = 0
        summary.endedAt = nil
        summary.lastEventAt = -5
        summary.segments = 7
        summary.words = 70
        summary.recordings = ["r1": .init(sampleRate: 16_000, channels: 1, frames: 48_000), "r2": .init(sampleRate: 8000, channels: 2, frames: 0)]
        summary.consent = ["audio_recording": false, "transcription": true]
        #expect(try SessionSummary(session: summary.session, row: summary.rowBytes) == summary)
    }

    @Test func theSessionListOfAStoreWithoutSessionsIsEmpty() async throws {
        try await withTemporaryStore { store in
            let runner = ProjectionRunner(log: try store.create())
            #expect(try runner.catchUp() == 0)
            #expect(try runner.sessions().isEmpty)
        }
    }
}

@Suite struct ConsentTrailViewTests {
    @Test func everySubjectsTrailIsPersistedInOrderAcrossSessions() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let first = UUID(), second = UUID()
            let file = """
            {"type":"session.started","session":"\(first)","at":"2026-11-21T10:00:00Z","subject":"anna","locale":"en"}
            {"type":"consent.granted","session":"\(first)","at":"2026-11-21T10:00:01Z","subject":"anna","consent_type":"audio_recording","method":"in_app_prompt","policy_version":"v3"}
            {"type":"session.started","session":"\(second)","at":"2026-11-21T11:00:00Z","subject":"anna","locale":"en"}
            {"type":"consent.revoked","session":"\(second)","at":"2026-11-21T11:00:01Z","subject":"anna","consent_type":"audio_recording","method":"settings"}
            {"type":"consent.granted","session":"\(second)","at":"2026-11-21T11:00:02Z","subject":"ben","consent_type":"transcription","method":"in_app_prompt"}
            """
            _ = try await SessionIngest(log: log).ingest(Data(file.utf8))
            let runner = ProjectionRunner(log: log)
            try runner.catchUp()
            let anna = try runner.consentTrail(of: try #require(SubjectHash(bytes: log.identifierHash("anna"))))
            try #require(anna.entries.map(\.granted) == [true, false])
            #expect(anna.entries.map(\.session) == [first, second])
            #expect(anna.entries[0].policyVersion == "v3")
            #expect(!anna.isGranted("audio_recording"))
            let ben = try runner.consentTrail(of: try #require(SubjectHash(bytes: log.identifierHash("ben"))))
            #expect(ben.entries.count == 1)
            #expect(ben.isGranted("transcription"))
            try runner.rebuild()
            #expect(try runner.consentTrail(of: anna.subject) == anna)
        }
    }
}

@Suite struct TranscriptViewPersistenceTests {
    static func started(_ id: String) -> String {
        #"{"type":"session.started","session":"\#(id)","at":"2026-11-21T10:00:00Z","subject":"s","locale":"en"}"#
    }

    static func commit(_ segment: String, _ text: String, of id: String) -> String {
        #"{"type":"transcript.committed","session":"\#(id)","at":"2026-11-21T10:00:10Z","segment":"\#(segment)","text":"\#(text)","start_ms":0,"end_ms":900}"#
    }

    @Test func thePersistedTranscriptEqualsTheFoldOfTheSessionAndSurvivesRebuild() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let session = UUID()
            let id = session.uuidString.lowercased()
            let file = """
            {"type":"session.started","session":"\(id)","at":"2026-11-21T10:00:00Z","subject":"s","locale":"en"}
            {"type":"transcript.partial","session":"\(id)","at":"2026-11-21T10:00:01Z","segment":"1","revision":0,"text":"hel","start_ms":0,"end_ms":1,"stability":0.2}
            {"type":"transcript.committed","session":"\(id)","at":"2026-11-21T10:00:02Z","segment":"1","text":"Hello.","start_ms":0,"end_ms":900,"confidence":0.8,"speaker":"a","words":[{"word":"Hello","start_ms":0,"end_ms":900,"confidence":0.8}]}
            {"type":"transcript.corrected","session":"\(id)","at":"2026-11-21T10:00:03Z","segment":"1","text":"Hallo."}
            {"type":"transcript.partial","session":"\(id)","at":"2026-11-21T10:00:04Z","segment":"2","revision":3,"text":"and then","start_ms":1000,"end_ms":1400}
            """
            _ = try await SessionIngest(log: log).ingest(Data(file.utf8))
            let runner = ProjectionRunner(log: log)
            try runner.catchUp()
            let folded = TranscriptView.fold(session: session, try log.readStream(StreamID(session)).map { try SessionMigrations.codec.decode($0).event })
            let persisted = try #require(try runner.transcript(of: session))
            #expect(persisted == folded)
            #expect(persisted.segments.first?.currentText == "Hallo.")
            #expect(persisted.partials.map(\.text) == ["and then"])
            // A later commit of segment 2 supersedes the stored partial.
            let more = #"{"type":"transcript.committed","session":"\#(id)","at":"2026-11-21T10:00:05Z","segment":"2","text":"And then.","start_ms":1000,"end_ms":1600}"#
            _ = try await SessionIngest(log: log).ingest(Data(more.utf8))
            try runner.catchUp()
            let updated = try #require(try runner.transcript(of: session))
            #expect(updated.segments.map(\.currentText) == ["Hallo.", "And then."])
            #expect(updated.partials.isEmpty)
            try runner.rebuild()
            #expect(try runner.transcript(of: session) == updated)
        }
    }

    /// The sealed bytes of every stored row of the transcripts view, by row key.
    static func storedTranscriptRows(in log: EventLog) throws -> [[UInt8]: [UInt8]] {
        let prefix = [UInt8(ProjectionRunner.transcriptsView.utf8.count)] + Array(ProjectionRunner.transcriptsView.utf8)
        return try log.reading { txn in
            var rows: [[UInt8]: [UInt8]] = [:]
            try txn.withCursor(StoreLayout.views) { cursor in
                var entry = try cursor.seek(atOrAfter: prefix)
                while let (key, value) = entry, key.starts(with: prefix) {
                    rows[Array(key.dropFirst(prefix.count))] = Array(value)
                    entry = try cursor.next()
                }
            }
            return rows
        }
    }

    @Test func aCatchUpSealsAgainOnlyTheTranscriptPartsThatChanged() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let session = UUID()
            let id = session.uuidString.lowercased()
            func commit(_ segment: Int) -> String {
                #"{"type":"transcript.committed","session":"\#(id)","at":"2026-11-21T10:00:10Z","segment":"\#(segment)","text":"Segment \#(segment).","start_ms":\#(segment * 1000),"end_ms":\#(segment * 1000 + 900)}"#
            }
            // 130 segments: blocks 0 and 1 full, block 2 holding two; then a partial of the next one.
            let first = [Self.started(id)] + (0..<130).map(commit)
                + [#"{"type":"transcript.partial","session":"\#(id)","at":"2026-11-21T10:00:13Z","segment":"130","revision":1,"text":"segm","start_ms":130000,"end_ms":130400}"#]
            _ = try await SessionIngest(log: log).ingest(Data(first.joined(separator: "\n").utf8))
            let runner = ProjectionRunner(log: log)
            try runner.catchUp()
            let before = try Self.storedTranscriptRows(in: log)
            let blocks = (0..<3).map { TranscriptParts.blockKey(session, $0) }
            #expect(Set(before.keys) == Set(blocks + [TranscriptParts.partialsKey(session)]))

            let second = [commit(130), #"{"type":"transcript.corrected","session":"\#(id)","at":"2026-11-21T10:00:14Z","segment":"0","text":"Corrected."}"#]
            _ = try await SessionIngest(log: log).ingest(Data(second.joined(separator: "\n").utf8))
            try runner.catchUp()
            let after = try Self.storedTranscriptRows(in: log)
            // Block 1 was not sealed again; block 0 (the correction) and block 2 (the new segment) were; the commit
            // emptied the partials, whose row went.
            #expect(after[blocks[1]] == before[blocks[1]])
            #expect(after[blocks[0]] != before[blocks[0]])
            #expect(after[blocks[2]] != before[blocks[2]])
            #expect(after[TranscriptParts.partialsKey(session)] == nil)
            let folded = TranscriptView.fold(session: session, try log.readStream(StreamID(session)).map { try SessionMigrations.codec.decode($0).event })
            #expect(try runner.transcript(of: session) == folded)
            let fresh = try #require(try ProjectionRunner(log: log).transcript(of: session))
            #expect(fresh.segments.count == 131)
            #expect(fresh.segments.first?.currentText == "Corrected.")
            #expect(fresh.segments.last?.currentText == "Segment 130.")
        }
    }

    @Test func runnersTakingTurnsAtOneStoreKeepEachTranscriptEqualToItsFold() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let sessions = [UUID(), UUID()]
            let ingest = SessionIngest(log: log)
            let runners = [ProjectionRunner(log: log), ProjectionRunner(log: log)]
            for round in 0..<6 {
                let session = sessions[round % 2]
                let id = session.uuidString.lowercased()
                var lines = round < 2 ? [Self.started(id)] : []
                lines += (0..<70).map { number in
                    let segment = round * 70 + number
                    return #"{"type":"transcript.committed","session":"\#(id)","at":"2026-11-21T10:00:10Z","segment":"\#(segment)","text":"Round \#(round), \#(number).","start_ms":\#(segment),"end_ms":\#(segment + 1)}"#
                }
                lines.append(#"{"type":"transcript.corrected","session":"\#(id)","at":"2026-11-21T10:00:11Z","segment":"\#(round * 70)","text":"Corrected in round \#(round)."}"#)
                _ = try await ingest.ingest(Data(lines.joined(separator: "\n").utf8))
                // Rounds 0, 1 by the first runner, 2 by the second, 3, 4 by the first again (its copies stale), 5 by the second.
                try runners[[0, 0, 1, 0, 0, 1][round]].catchUp()
                for runner in runners {
                    for session in sessions {
                        let events = try log.readStream(StreamID(session)).map { try SessionMigrations.codec.decode($0).event }
                        #expect(try runner.transcript(of: session) == (events.isEmpty ? nil : TranscriptView.fold(session: session, events)))
                    }
                }
            }
        }
    }

    @Test func aStoreWhoseTranscriptsAreInTheRetiredOneRowLayoutHasThemDroppedAndFoldedAgain() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let session = UUID()
            let id = session.uuidString.lowercased()
            _ = try await SessionIngest(log: log).ingest(Data((Self.started(id) + "\n" + Self.commit("1", "Hello.", of: id)).utf8))
            var stale = TranscriptView(session: session)
            stale.apply(SessionEvent(session: session, occurredAt: 0, payload: .transcriptCommitted(
                TranscriptCommitted(segment: "1", text: "Stale.", startMilliseconds: 0, endMilliseconds: 900))))
            try log.updateView(ProjectionRunner.retiredTranscriptsView) { view in
                try view.put(session.wireBytes, stale.rowBytes, sealedWithKeyOf: SessionStreams.session(session))
                try view.setCheckpoint(try log.eventCount())
            }
            let runner = ProjectionRunner(log: log)
            try runner.catchUp()
            #expect(try runner.transcript(of: session)?.segments.map(\.currentText) == ["Hello."])
            #expect(try log.readView(ProjectionRunner.retiredTranscriptsView) { try $0.checkpoint() } == nil)
            #expect(try log.readView(ProjectionRunner.retiredTranscriptsView) { view in
                var rows = 0
                try view.forEachRow { _, _ in rows += 1 }
                return rows
            } == 0)
        }
    }
}
