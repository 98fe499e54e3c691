import Audio
import EventLog
import Foundation
import HexCoding
import Output
import SessionAudio
import SessionLog
import SessionModel
import TimeCoding

/// One ingest: takes the parsed lines a window at a time, in file order, checks what needs the lines
/// before them (session starts, recording formats) and the store (read through `store`), codes audio as
/// FLAC, and hands back each window's appends, until the first problem; from then on it only checks.
/// The caller appends them (inside its transaction, or through group commit) and reports the results.
struct IngestRun {
    private let store: any IngestReads
    private let codec: SessionEventCodec

    private var problems: [IngestProblem] = []
    private var unlistedProblems = 0
    private var lines = 0
    private var appended = 0
    private var duplicates = 0
    /// Every session the input touches, and the id of its session.started in the input.
    private var sessions: Set<UUID> = []
    private var started: [UUID: UUID] = [:]
    /// When each session started (client clock) and on which line (0: in the store), for the check that
    /// no session ends before it starts.
    private var startTimes: [UUID: (at: Int64, line: Int)?] = [:]
    /// The first line of each client-given event id in the input, with a digest of its content: an id
    /// repeated with other content is refused, an identical repeat is skipped. Derived ids are not kept
    /// (one already stands for its line's bytes), and a digest is 16 bytes, so an hour of audio chunks
    /// costs a few megabytes at most.
    private var contentByID: [UUID: (line: Int, digest: ContentDigest)] = [:]
    /// Each recording's format, from its recording.started (in the input, or else in the store); nil
    /// when a chunk's recording is started nowhere.
    private var formats: [RecordingKey: AudioFormat?] = [:]

    private enum Either {
        case event(IngestedEvent)
        case problem(IngestProblem)
    }

    private struct RecordingKey: Hashable {
        var session: UUID
        var recording: String
    }

    /// Types the store writes itself that this input may hold (a replay run's record, from code).
    private let storeWrittenAllowed: Set<EventType>

    /// With `recordsPositions`: each event id's global position, and each line's in input order.
    private let recordsPositions: Bool
    private var positionByID: [UUID: UInt64] = [:]
    private var positions: [UInt64] = []
    private var duplicateLines: [Bool] = []

    init(store: any IngestReads, codec: SessionEventCodec, storeWrittenAllowed: Set<EventType> = [], recordsPositions: Bool = false) {
        self.store = store
        self.codec = codec
        self.storeWrittenAllowed = storeWrittenAllowed
        self.recordsPositions = recordsPositions
    }

    /// The appends of one window of lines, for ``appended(_:results:)`` once they are made.
    struct Window {
        /// Each session's events and then each subject's consent copies, as ``EventLog/append(_:)`` takes them.
        var parts: [StreamAppend]
        /// The sessions of the first parts, in order, and the window's events in input order.
        fileprivate var sessionOrder: [UUID]
        fileprivate var events: [IngestedEvent]
    }

    /// Takes the next lines of the input: their appends, or nil once the input has a problem (the
    /// rest is only checked, and ``finish()`` throws them all).
    mutating func take(_ parsed: [Result<IngestedEvent, IngestFailure>]) throws -> Window? {
        var events: [IngestedEvent] = []
        var found: [IngestProblem] = []
        for result in parsed {
            lines += 1
            switch result {
            case .success(let event):
                found += try check(event)
                events.append(event)
            case .failure(let failure):
                found += failure.problems
            }
        }
        found += codeAudioLosslessly(&events)
        found += try conflictsWithStoredEvents(events)
        record(found)
        guard problems.isEmpty, unlistedProblems == 0 else { return nil }
        return try window(of: events)
    }

    /// The report of a good input, or the failure listing its problems (which aborts the transaction).
    func finish() throws -> IngestReport {
        guard problems.isEmpty else {
            throw IngestFailure(problems: problems.sorted { ($0.line, $0.field ?? "") < ($1.line, $1.field ?? "") },
                                unlisted: unlistedProblems)
        }
        return IngestReport(lines: lines, appended: appended, duplicates: duplicates, sessions: sessions.count, positions: positions,
                            duplicateLines: duplicateLines)
    }

    private mutating func record(_ found: [IngestProblem]) {
        let room = max(0, SessionIngest.maximumListedProblems - problems.count)
        problems += found.prefix(room)
        unlistedProblems += max(0, found.count - room)
    }

    /// What is wrong with `ingested` given the lines before it and the store: a type the store
    /// writes itself, a session started twice or not started, a chunk of a recording not started.
    private mutating func check(_ ingested: IngestedEvent) throws -> [IngestProblem] {
        let event = ingested.event
        var found: [IngestProblem] = []
        if IngestLineParser.storeWrittenTypes.contains(event.type), !storeWrittenAllowed.contains(event.type) {
            found.append(IngestProblem(line: ingested.line, field: "type", reason: "\(event.type.rawValue) is written by the store itself"))
        }
        found += conflictingRepeat(ingested)
        if case .sessionStarted = event.payload {
            if let earlier = started[event.session], earlier != event.id {
                found.append(IngestProblem(line: ingested.line, field: "type",
                                           reason: "session \(event.session.uuidString.lowercased()) is started twice in this file"))
            }
            started[event.session] = event.id
            startTimes[event.session] = (event.occurredAt, ingested.line)
        }
        if case .sessionEnded = event.payload, let start = try startTime(of: event.session), event.occurredAt < start.at {
            let place = start.line == 0 ? "in the store" : "on line \(start.line)"
            found.append(IngestProblem(
                line: ingested.line, field: "at",
                reason: "session \(event.session.uuidString.lowercased()) ends at \(RFC3339.string(event.occurredAt)), before it started "
                    + "(\(RFC3339.string(start.at)), \(place)); a session cannot end before it starts"))
        }
        if sessions.insert(event.session).inserted, event.type != .sessionStarted,
           try store.streamMetadata(SessionStreams.session(event.session)) == nil {
            found.append(IngestProblem(
                line: ingested.line, field: "session",
                reason: "session \(event.session.uuidString.lowercased()) is not in the store and its first event here is \(event.type.rawValue), not session.started"))
        }
        switch event.payload {
        case .recordingStarted(let recording):
            formats[RecordingKey(session: event.session, recording: recording.recording)] =
                AudioFormat(sampleRate: Int(recording.sampleRate), channels: Int(recording.channels))
        case .recordingChunk(let chunk):
            let key = RecordingKey(session: event.session, recording: chunk.recording)
            if formats[key] == nil { formats[key] = .some(try storedFormat(of: chunk.recording, in: event.session)) }
            if formats[key]! == nil {
                found.append(IngestProblem(line: ingested.line, field: "recording",
                                           reason: "recording \"\(chunk.recording)\" has no recording.started before it in this file or in the store"))
            }
        default: break
        }
        return found
    }

    /// A problem when `ingested` repeats an earlier line's event id with other content. The digest covers
    /// the event's type and its encoded payload (before audio coding), so a byte-identical resend of a
    /// line, or the same event with its keys in another order, is a repeat and not a conflict.
    private mutating func conflictingRepeat(_ ingested: IngestedEvent) -> [IngestProblem] {
        guard !ingested.idIsDerived else { return [] }
        let digest = ContentDigest(SHA256.hash(Array(ingested.encoded.type.utf8) + [0] + ingested.encoded.data))
        guard let earlier = contentByID[ingested.event.id] else {
            contentByID[ingested.event.id] = (ingested.line, digest)
            return []
        }
        guard earlier.digest != digest else { return [] }
        return [IngestProblem(line: ingested.line, field: "id",
                              reason: "event id \(ingested.event.id.uuidString.lowercased()) is also on line \(earlier.line) with other "
                                + "content; an id names one event, and a resend must repeat it exactly")]
    }

    /// A problem for each event whose client-given id names a stored event of its session with other
    /// content (compared after audio coding, as stored); identical ones are left to deduplication.
    private func conflictsWithStoredEvents(_ events: [IngestedEvent]) throws -> [IngestProblem] {
        var bySession: [UUID: [IngestedEvent]] = [:]
        for ingested in events where !ingested.idIsDerived { bySession[ingested.event.session, default: []].append(ingested) }
        var found: [IngestProblem] = []
        for (session, candidates) in bySession {
            let stream = SessionStreams.session(session)
            guard try store.streamMetadata(stream) != nil else { continue }
            let stored = try store.storedEvents(of: stream, withIDs: Set(candidates.map(\.event.id)))
            for ingested in candidates {
                guard let earlier = stored[ingested.event.id],
                      earlier.type != ingested.encoded.type || earlier.data != ingested.encoded.data else { continue }
                found.append(IngestProblem(
                    line: ingested.line, field: "id",
                    reason: "event id \(ingested.event.id.uuidString.lowercased()) is stored already (position \(earlier.position)) "
                        + "with other content; an id names one event, and a resend must repeat it exactly"))
            }
        }
        return found
    }

    /// When `session` started: in this input, or else by its stored session.started; nil when unknown.
    private mutating func startTime(of session: UUID) throws -> (at: Int64, line: Int)? {
        if let known = startTimes[session] { return known }
        let first = try store.readStream(SessionStreams.session(session), from: 0, maxCount: 1, skippingErased: true) { $0 }.first
        var stored: (at: Int64, line: Int)?
        if let first, first.type == EventType.sessionStarted.rawValue {
            stored = (try codec.decode(first).event.occurredAt, 0)
        }
        startTimes[session] = .some(stored)
        return stored
    }

    /// Stores each chunk's PCM as FLAC in its recording's format, on all cores; a chunk that is not
    /// whole frames of that format is a problem.
    private func codeAudioLosslessly(_ events: inout [IngestedEvent]) -> [IngestProblem] {
        let chunks = events.indices.filter {
            if case .recordingChunk = events[$0].event.payload { return true } else { return false }
        }
        guard !chunks.isEmpty else { return [] }
        let snapshot = events, codec = self.codec, formats = self.formats
        let results = parallelMap(count: chunks.count, workers: ProcessInfo.processInfo.activeProcessorCount, threshold: 64) { (slot: Int) -> Either in
            var ingested = snapshot[chunks[slot]]
            guard case .recordingChunk(let chunk) = ingested.event.payload,
                  let format = formats[RecordingKey(session: ingested.event.session, recording: chunk.recording)] ?? nil else {
                return Either.event(ingested)  // reported by check(_:)
            }
            do throws(AudioError) {
                ingested.event.payload = .recordingChunk(try chunk.codedLosslessly(as: format))
                ingested.encoded = codec.encode(ingested.event)
                return .event(ingested)
            } catch {
                return .problem(IngestProblem(line: ingested.line, field: "pcm", reason: error.message))
            }
        }
        var problems: [IngestProblem] = []
        for (index, result) in zip(chunks, results) {
            switch result {
            case .event(let coded): events[index] = coded
            case .problem(let problem): problems.append(problem)
            }
        }
        return problems
    }

    /// The appends of `events`: each session's to its stream, each consent event also to its subject's
    /// consent stream.
    private mutating func window(of events: [IngestedEvent]) throws -> Window {
        var sessionOrder: [UUID] = []
        var bySession: [UUID: [ProposedEvent]] = [:]
        var consentOrder: [SubjectHash] = []
        var consent: [SubjectHash: [ProposedEvent]] = [:]
        for ingested in events {
            let event = ingested.event
            if bySession[event.session] == nil { sessionOrder.append(event.session) }
            bySession[event.session, default: []].append(ingested.encoded)
            switch event.payload {
            case .consentGranted(let change), .consentRevoked(let change):
                guard let subject = change.subject, let copy = ingested.encodedForConsentTrail else { break }
                if consent[subject] == nil { consentOrder.append(subject) }
                consent[subject, default: []].append(copy)
            default: break
            }
        }
        let parts = sessionOrder.map { StreamAppend(stream: SessionStreams.session($0), events: bySession[$0]!, deduplicate: true) }
            + consentOrder.map { StreamAppend(stream: SessionStreams.consent(of: $0), events: consent[$0]!, keyScope: .audit,
                                              deduplicate: true) }
        if recordsPositions { try findStoredPositions(parts.prefix(sessionOrder.count)) }
        return Window(parts: parts, sessionOrder: sessionOrder, events: events)
    }

    /// Counts what the window's appends stored and, with `recordsPositions`, where each line's event is.
    mutating func appended(_ window: Window, results: [AppendResult]) throws {
        let sessionResults = results.prefix(window.sessionOrder.count)
        appended += sessionResults.reduce(0) { $0 + $1.positions.count }
        duplicates += sessionResults.reduce(0) { $0 + $1.duplicates }
        guard recordsPositions else { return }
        // The ids this window appended; each line that claims one first is its appender, every other a duplicate.
        var appendedNow: Set<UUID> = []
        for (part, result) in zip(window.parts, sessionResults) {
            var fresh: [UUID] = []
            var seen: Set<UUID> = []
            for event in part.events where positionByID[event.id] == nil && seen.insert(event.id).inserted { fresh.append(event.id) }
            if fresh.count == result.positions.count {
                // What was appended is, in order, each event whose id the stream did not hold yet.
                for (id, position) in zip(fresh, result.positions) { positionByID[id] = position }
                appendedNow.formUnion(fresh)
            } else {
                // Another writer stored some of them between this window's reads and its append (a client
                // resending on a second connection while the first is still being answered): the store
                // dropped those as duplicates, so ask it where each one is.
                let stored = try store.storedPositions(of: part.stream, withIDs: Set(fresh))
                positionByID.merge(stored) { first, _ in first }
                let ours = Set(result.positions)
                appendedNow.formUnion(fresh.filter { stored[$0].map(ours.contains) ?? false })
            }
        }
        for ingested in window.events {
            guard let position = positionByID[ingested.event.id] else {
                throw EventLogError(.integrity, "the store holds no position for event \(Hex.uuid(ingested.event.id)) after its append")
            }
            positions.append(position)
            duplicateLines.append(appendedNow.remove(ingested.event.id) == nil)
        }
    }

    /// The positions of events among `parts` stored before this ingest (a resend).
    private mutating func findStoredPositions(_ parts: ArraySlice<StreamAppend>) throws {
        for part in parts {
            let unknown = Set(part.events.map(\.id)).subtracting(positionByID.keys)
            guard !unknown.isEmpty, try store.streamMetadata(part.stream) != nil else { continue }
            positionByID.merge(try store.storedPositions(of: part.stream, withIDs: unknown)) { first, _ in first }
        }
    }

    /// The format of a recording started in an earlier file, from the session's stored events.
    /// Reads the session from its start in small batches: a recording starts near its session's start,
    /// and an hour of audio after it need not be decrypted.
    private func storedFormat(of recording: String, in session: UUID) throws -> AudioFormat? {
        let stream = SessionStreams.session(session)
        let total = try store.streamMetadata(stream)?.version ?? 0
        var next: UInt64 = 0
        while next < total {
            let batch = try store.readStream(stream, from: next, maxCount: 256, skippingErased: true) { $0 }
            for recorded in batch where recorded.type == EventType.recordingStarted.rawValue {
                if case .recordingStarted(let started) = try codec.decode(recorded).event.payload, started.recording == recording {
                    return AudioFormat(sampleRate: Int(started.sampleRate), channels: Int(started.channels))
                }
            }
            next += 256
        }
        return nil
    }
}

/// The first 128 bits of a SHA-256: enough to tell two events' contents apart, kept inline.
private struct ContentDigest: Equatable {
    var high: UInt64
    var low: UInt64

    init(_ hash: [UInt8]) {
        high = hash[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
        low = hash[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
