import Foundation
import Ingest
import SessionModel
import Synchronization

/// A system under test that a stored session is replayed into: a recognizer, an app's pipeline.
///
/// ``ReplayDrive`` hands it the source session's events through ``ReplayInput``, each when its virtual
/// time comes, and takes what it produces through ``ReplayOutput``. ``ProcessReplayTarget`` runs a
/// command and speaks NDJSON over its standard input and output (`replay --drive`);
/// ``InProcessReplayTarget`` calls Swift code, for an app's own tests.
public protocol ReplayTarget: Sendable {
    /// The target as a run records it: a process target's command as given.
    var name: String { get }

    /// Runs the system for one drive: reads `input` to its end and hands what the system produces to
    /// `output`, returning when the system is done. Throws a ``ReplayDriveError`` when the system
    /// failed; the driver cancels the task when the system hangs.
    func drive(_ input: ReplayInput, _ output: ReplayOutput) async throws
}

/// The source session's events as a system under test receives them: each one when its virtual time
/// comes. The driver waits for the system to take an event before it paces the next.
///
/// Events that are due together (all of them at `--speed max`) are handed over in batches of up to
/// ``ReplayDrive/batchLimit``, so that a fast system is not slowed by a hand-off per event; the system
/// still takes them one by one, and the virtual clock stands at each one's time as it is taken.
public struct ReplayInput: AsyncSequence, Sendable {
    public typealias Element = RecordedSessionEvent

    /// The session replayed.
    public let session: UUID
    let channel: HandOff<[PacedEvent]>
    let monitor: DriveMonitor
    let clock: ReplayClock

    public func makeAsyncIterator() -> Iterator { Iterator(batches: batches()) }

    /// The events in the batches they were handed over in, each batch taken whole: for a target that
    /// writes a batch at once (``ProcessReplayTarget``). The clock stands at the batch's last event.
    /// Without `countingTakes`, the caller tells the monitor itself when the system took them
    /// (``tookEvents(_:)``): a process target, once the command has read their bytes.
    func batches(countingTakes: Bool = true) -> BatchIterator {
        BatchIterator(channel: channel, monitor: monitor, clock: clock, countsTakes: countingTakes)
    }

    /// The system took the next `count` events (for a caller of ``batches(countingTakes:)`` that counts them).
    func tookEvents(_ count: Int) { monitor.took(count) }

    /// Takes the events one by one.
    public struct Iterator: AsyncIteratorProtocol {
        var batches: BatchIterator
        var batch: [PacedEvent] = []
        var index = 0

        public mutating func next() async -> RecordedSessionEvent? {
            if index == batch.count {
                guard let next = await batches.channel.next() else { return nil }
                batch = next
                index = 0
            }
            let paced = batch[index]
            index += 1
            batches.clock.anchor(at: paced.virtualMilliseconds)
            batches.monitor.took(1)
            return paced.event
        }
    }

    /// Takes the events a batch at a time.
    struct BatchIterator {
        let channel: HandOff<[PacedEvent]>
        let monitor: DriveMonitor
        let clock: ReplayClock
        var countsTakes = true

        mutating func next() async -> [RecordedSessionEvent]? {
            guard let batch = await channel.next(), let last = batch.last else { return nil }
            clock.anchor(at: last.virtualMilliseconds)
            if countsTakes { monitor.took(batch.count) }
            return batch.map(\.event)
        }
    }
}

/// An event with its virtual time, on its way to the target.
struct PacedEvent: Sendable {
    var event: RecordedSessionEvent
    var virtualMilliseconds: Int64
}

/// Where a system under test puts what it produces. An event's time, when left out, is the virtual
/// clock's time when the event is handed over; its id, when left out, is derived from the run.
public final class ReplayOutput: Sendable {
    private let produced = Mutex<[DrivenEvent]>([])
    private let clock: ReplayClock
    private let monitor: DriveMonitor

    init(clock: ReplayClock, monitor: DriveMonitor) {
        self.clock = clock
        self.monitor = monitor
    }

    /// Takes one event the system produced. Throws ``ReplayDriveError/invalidOutput(_:)`` for an event
    /// of a type a system does not produce (only `transcript.partial` and `transcript.committed`).
    public func emit(_ event: ProducedEvent) throws {
        guard ProducedEventParser.producedTypes.contains(event.payload.type) else {
            let problem = IngestProblem(line: event.line, field: "type",
                                        reason: "\"\(event.payload.type.rawValue)\" is not what a system under test produces "
                                            + "(transcript.partial, transcript.committed)")
            throw ReplayDriveError.invalidOutput(problem)
        }
        let virtual = clock.now()
        produced.withLock { $0.append(DrivenEvent(event: event, virtualMilliseconds: virtual)) }
        monitor.noteOutput()
    }

    var events: [DrivenEvent] { produced.withLock { $0 } }
}

/// An event a system produced, with the virtual time at which the driver took it.
public struct DrivenEvent: Hashable, Sendable {
    /// The event as the system gave it.
    public var event: ProducedEvent
    /// Virtual milliseconds since the source's first event when it was taken.
    public var virtualMilliseconds: Int64
}
