import Audio
import EventLog
import Foundation
import HexCoding
import Ingest
import Output
import Projections
import SessionModel

/// Makes a condition suite: for every source session and every condition, a new fixture session whose
/// audio is the source's changed as the condition says and whose transcript truth is the source's,
/// labelled with its `condition`, `speaker` (its segments' speakers, joined by `+`), `derived_from`
/// and, when named, `suite`. Deterministic: the same sources, conditions and seed give the same
/// sessions, ids included, so making a suite again stores nothing new.
public enum ConditionSuite {
    /// What a suite is made of, besides its sources.
    public struct Options: Sendable {
        public var conditions: [Condition]
        /// Seeds the noise, the voices picked and the derived sessions' partials and commit times.
        public var seed: UInt64
        /// The suite's name (the `suite` label), when given.
        public var suite: String?
        /// More labels for every derived session.
        public var labels: [String: String]

        public init(conditions: [Condition], seed: UInt64 = 1, suite: String? = nil, labels: [String: String] = [:]) {
            self.conditions = conditions
            self.seed = seed
            self.suite = suite
            self.labels = labels
        }
    }

    /// One derived session, as stored.
    public struct Derived: Sendable {
        public var source: UUID
        public var session: UUID
        /// Its whole condition, as its `condition` label says (a session derived from a derived one went
        /// through the source's condition too; a long session's is `long:…`).
        public var condition: String
        public var labels: [String: String]
        /// Its audio, in milliseconds.
        public var audioMilliseconds: Int
        /// Events stored now, and events found stored already (a suite made again).
        public var appended: Int
        public var duplicates: Int
    }

    /// The sessions of `summaries` a suite can be made from when none is named: not a run, not derived
    /// (no `derived_from` label), not erased, with a recording and a committed segment; in start order.
    public static func sources(among summaries: [SessionSummary]) -> [UUID] {
        summaries
            .filter { $0.runOf == nil && $0.labels["derived_from"] == nil && !$0.isShredded && !$0.recordings.isEmpty && $0.segments > 0 }
            .sorted { ($0.startedAt ?? 0, $0.session.uuidString) < ($1.startedAt ?? 0, $1.session.uuidString) }
            .map(\.session)
    }

    /// Derives every condition of `options` from every session of `sessions` and stores the results in
    /// `log`, one session at a time; `progress` is told of each.
    /// - Throws: ``ConditionError`` (a source that cannot be derived from, babble or overlap with one
    ///   source, labels past the rules) before anything is stored; the store's and ingest's errors.
    public static func derive(from sessions: [UUID], in log: EventLog, options: Options,
                              progress: (Derived) -> Void = { _ in }) async throws -> [Derived] {
        guard !options.conditions.isEmpty else { throw ConditionError(.invalidCondition, "no condition given; name at least one") }
        guard !sessions.isEmpty else { throw ConditionError(.unusableSource, "no source session to derive from") }
        if let name = options.labels.keys.sorted().first(where: reservedLabels.contains) {
            throw ConditionError(.invalidCondition, "label \(name) is set by derive itself (\(reservedLabels.sorted().joined(separator: ", "))); "
                                 + "give the suite with --suite and choose another name for yours")
        }
        let sources = try sessions.map { try SuiteSource.load($0, from: log) }
        let plans = try sources.flatMap { source throws(ConditionError) in
            try options.conditions.map { condition throws(ConditionError) in
                let labels = try labels(of: source, under: condition, options: options)
                if condition.needsOtherVoices, sources.count < 2 {
                    throw ConditionError(.unusableSource, "condition \(condition) mixes in another source's voice; give at least two sources")
                }
                return (source, condition, labels)
            }
        }
        var derived: [Derived] = []
        for (source, condition, labels) in plans {
            let seed = derivedSeed(options.seed, source.session, condition)
            let (audio, script) = try ConditionMixer.apply(condition, to: source, voices: sources, seed: seed)
            let one = try await store(audio, script, derivedFrom: source, condition: labels["condition"] ?? condition.description,
                                      labels: labels, seed: seed, in: log, named: "session \(Hex.uuid(source.session)) under \(condition)")
            progress(one)
            derived.append(one)
        }
        return derived
    }

    /// Records `audio` and `script` as a session derived from `source` (its subject, the start of its recording, the
    /// recording's id, consent under its policy) with `labels`, and stores it; `name` says which in an error.
    static func store(_ audio: DecodedAudio, _ script: FixtureScript, derivedFrom source: SuiteSource, condition: String,
                      labels: [String: String], seed: UInt64, in log: EventLog, named name: String) async throws -> Derived {
        var options = SessionRecorder.Options(subject: "derived:" + Hex.uuid(source.session), seed: seed, startAt: source.recordingStartedAt,
                                              recording: source.recording)
        options.labels = labels
        options.consentMethod = "derived_from_source"
        options.consentPolicyVersion = source.consentPolicyVersion
        let subject = source.subject
        let recorder = SessionRecorder(audio: audio, script: script, options: options) { _ in subject }
        let events: [SessionEvent]
        do throws(FixtureError) { events = try recorder.events() } catch {
            throw ConditionError(.unusableSource, "\(name): \(error.message)", underlying: error)
        }
        let report = try await SessionIngest(log: log).ingest(events: events)
        return Derived(source: source.session, session: recorder.session, condition: condition, labels: labels,
                       audioMilliseconds: recorder.audioMilliseconds, appended: report.appended, duplicates: report.duplicates)
    }

    /// The derived session's labels: the source's, the options', then `condition`, `speaker`,
    /// `derived_from` and `suite`.
    static func labels(of source: SuiteSource, under condition: Condition, options: Options) throws(ConditionError) -> [String: String] {
        var labels = source.labels.merging(options.labels) { $1 }
        // A session derived from a derived one went through both conditions, in order.
        labels["condition"] = source.labels["condition"].map { $0 + "," + condition.description } ?? condition.description
        labels["derived_from"] = Hex.uuid(source.session)
        if !source.speakers.isEmpty { labels["speaker"] = source.speakers.joined(separator: "+") }
        if let suite = options.suite { labels["suite"] = suite }
        if let problem = SessionLabels.problem(labels: labels) {
            throw ConditionError(.invalidCondition, "the session derived from \(Hex.uuid(source.session)) under \(condition): \(problem)")
        }
        return labels
    }

    /// The labels derive sets itself, which `Options.labels` may not name.
    static let reservedLabels: Set<String> = ["condition", "derived_from", "speaker", "suite"]

    /// One seed per source and condition, from the suite's.
    static func derivedSeed(_ seed: UInt64, _ source: UUID, _ condition: Condition) -> UInt64 {
        var digest = SHA256()
        digest.update("sessionstore condition suite v1")
        withUnsafeBytes(of: seed.bigEndian) { digest.update($0) }
        withUnsafeBytes(of: source.uuid) { digest.update($0) }
        digest.updateField(Array(condition.description.utf8))
        return digest.digest().prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
