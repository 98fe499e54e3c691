import EventLog
import Foundation
import Ingest
import SessionModel

/// Replays a stored session into a system under test (``ReplayTarget``) on the virtual clock, and
/// collects what the system produces.
///
/// Each of the session's events is handed over when its virtual time comes (`speed`), except its own
/// `transcript.*` events unless `withTranscript`: the system is to produce those. The driver waits for
/// the system to take each event; a system that takes none for `timeout`, or that is still running
/// and silent `timeout` after its input ended, is stopped and the drive fails. Memory does not grow
/// with the session: its events are read in batches and let go once handed over.
public struct ReplayDrive: Sendable {
    /// How a session is driven.
    public struct Options: Sendable {
        /// How fast the virtual clock runs.
        public var speed: ReplaySpeed
        /// Hand the system the session's own transcript events too (for systems that only consume).
        public var withTranscript: Bool
        /// How long the system may leave an event untaken, or stay silent after its input ended; nil:
        /// ``baseTimeout`` plus the session's recorded length at `speed`, so that a long session driven at its
        /// recorded pace is never taken for a hang.
        public var timeout: Duration?

        /// What a drive waits for at least when no timeout is given.
        public static let baseTimeout = Duration.seconds(30)

        /// The timeout of a drive of a session whose events span `recordedLength` milliseconds.
        public func timeout(forRecordedLength recordedLength: Int64) -> Duration {
            timeout ?? Self.baseTimeout + .microseconds(Int64(speed.wallMilliseconds(forVirtual: recordedLength) * 1000))
        }

        /// Options for a drive.
        public init(speed: ReplaySpeed = .max, withTranscript: Bool = false, timeout: Duration? = nil) {
            self.speed = speed
            self.withTranscript = withTranscript
            self.timeout = timeout
        }
    }

    /// The session replayed.
    public let session: UUID
    /// How it is driven.
    public let options: Options
    private let source: ReplaySource
    private let sleep: @Sendable (Duration) async throws -> Void

    /// A drive of `session` as stored in `log`.
    public init(session: UUID, log: EventLog, options: Options = Options(),
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) throws {
        self.init(session, .loading(try SessionLoader(session: session, log: log)), options, sleep)
    }

    /// A drive of `session` from its events in memory (its own stream, in order).
    public init(session: UUID, events: [RecordedSessionEvent], options: Options = Options(),
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) {
        self.init(session, .events(events.filter { !$0.isCopy && $0.event.session == session }), options, sleep)
    }

    private init(_ session: UUID, _ source: ReplaySource, _ options: Options,
                 _ sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.session = session
        self.source = source
        self.options = options
        self.sleep = sleep
    }

    /// Drives the session into `target` to the end. Throws ``ReplayDriveError`` when the system fails
    /// or hangs (it is then stopped).
    public func run(into target: some ReplayTarget) async throws -> ReplayDriveResult {
        let clock = ReplayClock(speed: options.speed), monitor = DriveMonitor()
        let channel = HandOff<[PacedEvent]>()
        let input = ReplayInput(session: session, channel: channel, monitor: monitor, clock: clock)
        let output = ReplayOutput(clock: clock, monitor: monitor)
        let startedAt = Self.wallMilliseconds()
        let timeout = options.timeout(forRecordedLength: source.recordedLength)
        var fed: Fed?
        try await withThrowingTaskGroup(of: DriveTask.self) { group in
            group.addTask {
                try await target.drive(input, output)
                return .targetEnded
            }
            group.addTask { .fed(try await feed(channel, monitor: monitor)) }
            group.addTask {
                while !Task.isCancelled {
                    if let hang = monitor.hang(timeout: timeout) { throw hang }
                    try? await Task.sleep(for: .milliseconds(50))
                }
                return .watchdogStopped
            }
            var targetEnded = false
            while !(targetEnded && fed != nil), let next = try await group.next() {
                switch next {
                case .targetEnded:
                    targetEnded = true
                    monitor.endTarget()
                    channel.finish()  // a target that ended early leaves an event waiting to be taken
                case .fed(let result):
                    fed = result
                case .watchdogStopped:
                    break
                }
            }
            group.cancelAll()
        }
        guard let fed, fed.complete else { throw ReplayDriveError.exitedBeforeInputEnded(taken: monitor.eventsTaken) }
        guard let started = fed.started else {
            throw ReplayDriveError.sourceUnusable("session \(session.uuidString.lowercased()) has no session.started event; a run takes its subject and locale from it")
        }
        return ReplayDriveResult(source: session, sourceStarted: started, firstEventAt: fed.firstEventAt ?? started.occurredAt,
                                 eventsTaken: monitor.eventsTaken, produced: output.events, startedAt: startedAt,
                                 endedAt: Self.wallMilliseconds(), virtualMilliseconds: clock.now())
    }

    private enum DriveTask: Sendable {
        case targetEnded, fed(Fed), watchdogStopped
    }

    /// What feeding found in the source: its start, its first event's time; and whether it got to the end.
    private struct Fed: Sendable {
        var started: (occurredAt: Int64, payload: SessionStarted)?
        var firstEventAt: Int64?
        var complete: Bool
    }

    /// The most events handed over at once: events due together (all of them at `--speed max`) go in
    /// one hand-off, and a process target writes them in one go (about 60 KB of audio chunks).
    public static let batchLimit = 16

    private func feed(_ channel: HandOff<[PacedEvent]>, monitor: DriveMonitor) async throws -> Fed {
        var timeline = VirtualTimeline()
        var fed = Fed(complete: false)
        var index = 0, handed = 0
        var due: [PacedEvent] = []
        defer { channel.finish() }
        /// Hands over the events due; false when they were not taken (the target ended, or the drive was cancelled).
        func handOver() async -> Bool {
            guard !due.isEmpty else { return true }
            handed += due.count
            monitor.waiting(for: handed)
            await channel.send(due)
            due.removeAll(keepingCapacity: true)
            return !(monitor.targetEnded || Task.isCancelled)
        }
        while let recorded = try await source.event(at: index) {
            index += 1
            let event = recorded.event
            if fed.firstEventAt == nil { fed.firstEventAt = event.occurredAt }
            if fed.started == nil, case .sessionStarted(let started) = event.payload { fed.started = (event.occurredAt, started) }
            let wall = options.speed.wallMilliseconds(forVirtual: timeline.gap(to: event.occurredAt).wait)
            if wall > 0 {
                guard await handOver() else { return fed }
                try await sleep(.microseconds(Int64(wall * 1000)))
            }
            timeline.advance(to: event.occurredAt)
            if !options.withTranscript, SessionReplay.transcriptSegment(of: event.payload) != nil { continue }
            due.append(PacedEvent(event: recorded, virtualMilliseconds: timeline.now))
            if due.count == Self.batchLimit { guard await handOver() else { return fed } }
        }
        guard await handOver() else { return fed }
        monitor.inputEnded()
        fed.complete = true
        return fed
    }

    static func wallMilliseconds() -> Int64 { EventLogOptions.systemClock() }
}
