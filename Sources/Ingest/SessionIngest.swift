import Audio
import EventLog
import Foundation
import Migrations
import SessionLog
import SessionModel

/// Every problem of a rejected ingest file; nothing of it was appended.
public struct IngestFailure: Error, Sendable, CustomStringConvertible {
    /// Every problem found, sorted by line and field.
    public var problems: [IngestProblem]
    public var description: String {
        "\(problems.count) \(problems.count == 1 ? "line has a problem" : "problems"); nothing was appended"
    }
}

/// What an ingest appended.
public struct IngestReport: Hashable, Sendable {
    /// Events in the input.
    public var lines: Int
    /// Events appended to session streams (consent copies not counted).
    public var appended: Int
    /// Events left out because their ids were stored already (a resent file).
    public var duplicates: Int
    /// Sessions the input touched.
    public var sessions: Int

    /// A report of these counts.
    public init(lines: Int, appended: Int, duplicates: Int, sessions: Int) {
        self.lines = lines
        self.appended = appended
        self.duplicates = duplicates
        self.sessions = sessions
    }
}

/// Ingests NDJSON files of session events (docs/INGEST.md): every line is checked first, and a
/// file with any bad line appends nothing; a good file is appended in one atomic transaction, each
/// session's events to its stream and each consent event also to its subject's consent stream.
/// Events already stored (by id) are skipped, so a client may send a file again safely.
public struct SessionIngest: Sendable {
    /// The store appended to.
    public let log: EventLog
    /// The codec that encodes new events and reads stored ones.
    public let codec: SessionEventCodec
    /// Told how far the ingest is (from several threads at once): for a progress display.
    public var onProgress: (@Sendable (IngestProgress) -> Void)?

    /// Ingest into `log`, with the codec that reads every schema version.
    public init(log: EventLog, codec: SessionEventCodec = SessionMigrations.codec) {
        self.log = log
        self.codec = codec
    }

    /// Parses and checks every line of `data`; the events, or every problem found.
    public func validate(_ data: Data) throws -> Result<[IngestedEvent], IngestFailure> {
        let log = self.log
        let parser = IngestLineParser(hashIdentifier: { log.identifierHash($0) }, codec: codec)
        let lines = Self.lines(of: data)
        let tally = tally(.parsing, lines.count)
        let results = parallelMap(count: lines.count, workers: ProcessInfo.processInfo.activeProcessorCount,
                                  threshold: 2048) { index in
            defer { tally?.add() }
            return parser.parse(lines[index].bytes, line: lines[index].number)
        }
        var events: [IngestedEvent] = []
        var problems: [IngestProblem] = []
        for result in results {
            switch result {
            case .success(let event): events.append(event)
            case .failure(let found): problems += found.problems
            }
        }
        return try checked(events, problems: problems)
    }

    /// Checks events built in code (a fixture session, an import) as a file's lines are checked;
    /// a problem's `line` is the event's 1-based place in `events`.
    public func validate(events: [SessionEvent]) throws -> Result<[IngestedEvent], IngestFailure> {
        var problems: [IngestProblem] = []
        for (index, event) in events.enumerated() where IngestLineParser.storeWrittenTypes.contains(event.type) {
            problems.append(IngestProblem(line: index + 1, field: "type", reason: "\(event.type.rawValue) is written by the store itself"))
        }
        return try checked(events.enumerated().map { IngestedEvent($1, line: $0 + 1, codec: codec) }, problems: problems)
    }

    /// Adds the problems that need every event (session starts, audio formats) and sorts them.
    private func checked(_ parsed: [IngestedEvent], problems found: [IngestProblem]) throws -> Result<[IngestedEvent], IngestFailure> {
        var events = parsed
        var problems = found
        problems += try sessionProblems(events)
        problems += try codeAudioLosslessly(&events)
        problems.sort { ($0.line, $0.field ?? "") < ($1.line, $1.field ?? "") }
        return problems.isEmpty ? .success(events) : .failure(IngestFailure(problems: problems))
    }

    /// Validates and appends `data`; throws ``IngestFailure`` listing every problem when any line is bad.
    public func ingest(_ data: Data) async throws -> IngestReport {
        try await append(try validate(data).get())
    }

    /// Validates and appends events built in code, all or nothing, like a file.
    public func ingest(events: [SessionEvent]) async throws -> IngestReport {
        try await append(try validate(events: events).get())
    }

    private func tally(_ stage: IngestProgress.Stage, _ total: Int) -> ProgressTally? {
        onProgress.map { report in ProgressTally(total: total) { report(IngestProgress(stage: stage, done: $0, total: $1)) } }
    }

    private func append(_ events: [IngestedEvent]) async throws -> IngestReport {
        onProgress?(IngestProgress(stage: .appending, done: 0, total: events.count))
        var sessionOrder: [UUID] = []
        var bySession: [UUID: [ProposedEvent]] = [:]
        var consent: [SubjectHash: [ProposedEvent]] = [:]
        var consentOrder: [SubjectHash] = []
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
        let results = try await log.append(parts)
        let sessionResults = results.prefix(sessionOrder.count)
        return IngestReport(lines: events.count, appended: sessionResults.reduce(0) { $0 + $1.positions.count },
                            duplicates: sessionResults.reduce(0) { $0 + $1.duplicates }, sessions: sessionOrder.count)
    }

    /// A session's first event must start it, unless the store holds the session already; and a
    /// session is started once.
    private func sessionProblems(_ events: [IngestedEvent]) throws -> [IngestProblem] {
        var problems: [IngestProblem] = []
        var seen: Set<UUID> = []
        var started: [UUID: UUID] = [:]  // session → id of its session.started in this file
        for ingested in events {
            let event = ingested.event
            if case .sessionStarted = event.payload {
                if let earlier = started[event.session], earlier != event.id {
                    problems.append(IngestProblem(line: ingested.line, field: "type",
                                                  reason: "session \(event.session.uuidString.lowercased()) is started twice in this file"))
                }
                started[event.session] = event.id
            }
            guard seen.insert(event.session).inserted else { continue }
            if event.type != .sessionStarted, try log.streamMetadata(SessionStreams.session(event.session)) == nil {
                problems.append(IngestProblem(
                    line: ingested.line, field: "session",
                    reason: "session \(event.session.uuidString.lowercased()) is not in the store and its first event here is \(event.type.rawValue), not session.started"))
            }
        }
        return problems
    }

    /// Stores each chunk's PCM as FLAC in its recording's format (from the recording's start in this
    /// file, or else in the store); a chunk that is not whole frames of that format is a problem.
    private func codeAudioLosslessly(_ events: inout [IngestedEvent]) throws -> [IngestProblem] {
        struct RecordingKey: Hashable { var session: UUID, recording: String }
        var formats: [RecordingKey: AudioFormat] = [:]
        var chunkIndices: [Int] = []
        for (index, ingested) in events.enumerated() {
            switch ingested.event.payload {
            case .recordingStarted(let started):
                formats[RecordingKey(session: ingested.event.session, recording: started.recording)] =
                    AudioFormat(sampleRate: Int(started.sampleRate), channels: Int(started.channels))
            case .recordingChunk(let chunk):
                let key = RecordingKey(session: ingested.event.session, recording: chunk.recording)
                if formats[key] == nil { formats[key] = try storedFormat(of: chunk.recording, in: ingested.event.session) }
                chunkIndices.append(index)
            default: break
            }
        }
        guard !chunkIndices.isEmpty else { return [] }
        let snapshot = events, codec = self.codec
        let tally = tally(.codingAudio, chunkIndices.count)
        let results = parallelMap(count: chunkIndices.count, workers: ProcessInfo.processInfo.activeProcessorCount,
                                  threshold: 64) { slot in
            defer { tally?.add() }
            return Self.codeLosslessly(snapshot[chunkIndices[slot]], codec: codec) { session, recording in
                formats[RecordingKey(session: session, recording: recording)] ?? nil
            }
        }
        var problems: [IngestProblem] = []
        for (slot, result) in zip(chunkIndices, results) {
            switch result {
            case .success(let coded): events[slot] = coded
            case .failure(let failure): problems += failure.problems
            }
        }
        return problems
    }

    /// The format of a recording started in an earlier file, from the session's stored events.
    /// Reads the session from its start in small batches: a recording starts near its session's start,
    /// and an hour of audio after it need not be decrypted.
    private func storedFormat(of recording: String, in session: UUID) throws -> AudioFormat? {
        let stream = SessionStreams.session(session)
        let total = try log.streamMetadata(stream)?.version ?? 0
        var next: UInt64 = 0
        while next < total {
            let batch = try log.readStream(stream, from: next, maxCount: 256, skippingErased: true) { $0 }
            for recorded in batch where recorded.type == EventType.recordingStarted.rawValue {
                if case .recordingStarted(let started) = try codec.decode(recorded).event.payload, started.recording == recording {
                    return AudioFormat(sampleRate: Int(started.sampleRate), channels: Int(started.channels))
                }
            }
            next += 256
        }
        return nil
    }

    /// One chunk's PCM coded as FLAC in its recording's format, or the problem with it.
    private static func codeLosslessly(_ ingested: IngestedEvent, codec: SessionEventCodec,
                                       format: (UUID, String) -> AudioFormat?) -> Result<IngestedEvent, IngestFailure> {
        var ingested = ingested
        guard case .recordingChunk(let chunk) = ingested.event.payload else { return .success(ingested) }
        guard let format = format(ingested.event.session, chunk.recording) else {
            return .failure(IngestFailure(problems: [IngestProblem(
                line: ingested.line, field: "recording",
                reason: "recording \"\(chunk.recording)\" has no recording.started in this file or in the store")]))
        }
        do {
            ingested.event.payload = .recordingChunk(try chunk.codedLosslessly(as: format))
            ingested.encoded = codec.encode(ingested.event)
            return .success(ingested)
        } catch {
            return .failure(IngestFailure(problems: [IngestProblem(line: ingested.line, field: "pcm", reason: error.message)]))
        }
    }

    /// Lines without their line ends, with 1-based numbers; blank lines are left out.
    static func lines(of data: Data) -> [(number: Int, bytes: Data)] {
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            var lines: [(Int, Data)] = []
            var number = 0
            var start = 0
            while start < raw.count {
                number += 1
                var end = start
                while end < raw.count, raw[end] != 0x0A { end += 1 }
                var last = end
                if last > start, raw[last - 1] == 0x0D { last -= 1 }
                var blank = true
                for index in start..<last where raw[index] != 0x20 && raw[index] != 0x09 {
                    blank = false
                    break
                }
                if !blank { lines.append((number, Data(UnsafeRawBufferPointer(rebasing: raw[start..<last])))) }
                start = end + 1
            }
            return lines
        }
    }
}
