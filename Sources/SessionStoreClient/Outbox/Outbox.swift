import Foundation
import Synchronization
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where an outbox lives and what it may hold.
public struct OutboxConfiguration: Sendable {
    /// The outbox's own directory (created if missing). On iOS, give it the file protection class
    /// `completeUntilFirstUserAuthentication`, so that a locked phone still records (docs/CLIENT.md).
    public var directory: URL
    /// The key that seals every record.
    public var key: OutboxKey
    /// The most the outbox's files may hold, in bytes; an append past it is refused (``ClientError/Code/outboxFull``).
    public var byteBudget: Int
    /// The size at which the outbox starts a new file; a file is deleted once all its events are acknowledged.
    public var segmentBytes: Int

    public init(directory: URL, key: OutboxKey, byteBudget: Int = 512 << 20, segmentBytes: Int? = nil) {
        self.directory = directory
        self.key = key
        self.byteBudget = byteBudget
        self.segmentBytes = segmentBytes ?? min(4 << 20, max(byteBudget / 8, 4 << 10))
    }
}

/// The device's durable queue of events not yet stored by the server: an append returns once the event is sealed and
/// synced to disk; acknowledgements release events, and a file whose events are all released is deleted. Reopened
/// after a kill, it holds every event whose append returned, in order, less those acknowledged before the kill
/// (an acknowledgement lost to the kill makes its events be sent again, and the server stores them once: event ids).
/// The file format: docs/CLIENT-FORMAT.md.
package final class Outbox: Sendable {
    /// An event in the outbox: where its sealed line is.
    package struct Entry: Sendable, Equatable {
        package let sequence: UInt64
        package let session: UUID
        package let id: UUID
        package let closes: Bool
        let segment: UInt64
        let offset: Int
        let length: Int
    }

    /// The server's refusal of an event, which stops its session on this device.
    package struct Refusal: Sendable, Equatable {
        package let sequence: UInt64
        package let problem: Data
    }

    package let directory: URL
    private let key: OutboxKey
    private let byteBudget: Int
    private let segmentBytes: Int
    private let state: Mutex<State>

    private struct Queue {
        var pending: [Entry] = []
        var head = 0
        var acknowledgedThrough: UInt64 = 0
        var refusal: Refusal?
        var discarded = false
        var closed = false
        /// The newest segment holding an event of this session: its state is carried into new segments until that
        /// segment is deleted.
        var newestSegment: UInt64 = 0

        var unacknowledged: ArraySlice<Entry> { pending[head...] }

        mutating func release(through sequence: UInt64, _ released: (Entry) -> Void) {
            while head < pending.count, pending[head].sequence <= sequence {
                released(pending[head])
                head += 1
            }
            if head > 256, head * 2 > pending.count {
                pending.removeFirst(head)
                head = 0
            }
        }
    }

    private struct State {
        var segments: [UInt64: OutboxSegment] = [:]
        var current: OutboxSegment
        var liveEvents: [UInt64: Int] = [:]
        var queues: [UUID: Queue] = [:]
        var nextSequence: UInt64
        var pendingBytes = 0
        var pendingEvents = 0

        var bytesOnDisk: Int { segments.values.reduce(0) { $0 + $1.size } }
        var oldestSegment: UInt64 { segments.keys.min() ?? current.number }
    }

    /// Opens the outbox in `configuration.directory`, creating it when missing; a torn last write is cut off.
    package init(_ configuration: OutboxConfiguration) throws {
        directory = configuration.directory
        key = configuration.key
        byteBudget = configuration.byteBudget
        segmentBytes = configuration.segmentBytes
        let manager = FileManager.default
        do {
            try manager.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ClientError(.outboxIO, "cannot create the outbox directory \(directory.path)", underlying: error)
        }
        let names: [String]
        do { names = try manager.contentsOfDirectory(atPath: directory.path) } catch {
            throw ClientError(.outboxIO, "cannot list the outbox directory \(directory.path)", underlying: error)
        }
        for name in names where name.hasSuffix(OutboxSegment.partialSuffix) {
            unlink(directory.appendingPathComponent(name).path)  // a segment whose creation a kill cut short: no record in it
        }
        let numbers = names.compactMap(OutboxSegment.number(ofFile:)).sorted()
        var segments: [UInt64: OutboxSegment] = [:]
        var queues: [UUID: Queue] = [:]
        var liveEvents: [UInt64: Int] = [:]
        var nextSequence: UInt64 = 1
        var pendingBytes = 0, pendingEvents = 0
        for number in numbers {
            let segment = try OutboxSegment.open(directory.appendingPathComponent(OutboxSegment.fileName(number)), key: key)
            guard segment.number == number else {
                throw ClientError(.outboxDamaged, "the outbox file \(segment.url.path) names segment \(segment.number) in its header")
            }
            segments[number] = segment
            nextSequence = max(nextSequence, segment.firstSequence)
            try segment.scan(key: key, isLast: number == numbers.last) { record, offset, length in
                switch record {
                case .event(let sequence, let session, let id, let closes, _):
                    nextSequence = max(nextSequence, sequence + 1)
                    var queue = queues[session, default: Queue()]
                    queue.newestSegment = number
                    queue.closed = queue.closed || closes
                    guard sequence > queue.acknowledgedThrough, !queue.discarded else { queues[session] = queue; return }
                    queue.pending.append(Entry(sequence: sequence, session: session, id: id, closes: closes, segment: number, offset: offset, length: length))
                    queues[session] = queue
                    liveEvents[number, default: 0] += 1
                    pendingBytes += length
                    pendingEvents += 1
                case .acknowledged(let session, let through):
                    nextSequence = max(nextSequence, through + 1)
                    queues[session, default: Queue()].acknowledgedThrough = max(queues[session]?.acknowledgedThrough ?? 0, through)
                    queues[session]!.release(through: through) { entry in
                        liveEvents[entry.segment]! -= 1
                        pendingBytes -= entry.length
                        pendingEvents -= 1
                    }
                case .refused(let session, let sequence, let problem):
                    queues[session, default: Queue()].refusal = Refusal(sequence: sequence, problem: problem)
                case .discarded(let session):
                    queues[session, default: Queue()].discarded = true
                    queues[session]!.release(through: .max) { entry in
                        liveEvents[entry.segment]! -= 1
                        pendingBytes -= entry.length
                        pendingEvents -= 1
                    }
                }
            }
        }
        let current: OutboxSegment
        if let last = numbers.last, let segment = segments[last] {
            current = segment
        } else {
            current = try OutboxSegment.create(in: directory, number: 1, firstSequence: nextSequence, key: key)
            segments[1] = current
        }
        state = Mutex(State(segments: segments, current: current, liveEvents: liveEvents, queues: queues, nextSequence: nextSequence,
                            pendingBytes: pendingBytes, pendingEvents: pendingEvents))
        try state.withLock { state in try deleteReleasedSegments(&state) }
    }

    /// Appends `line` (an ingest line, docs/INGEST.md) as event `id` of `session`, and returns once it is synced.
    /// `closes`: the event ends its session, which takes no event after it.
    @discardableResult
    package func append(line: Data, id: UUID, session: UUID, closes: Bool = false) throws -> Entry {
        try state.withLock { state in
            let queue = state.queues[session] ?? Queue()
            if queue.discarded { throw ClientError(.sessionClosed, "session \(session.uuidString.lowercased()) was discarded on this device") }
            if let refusal = queue.refusal {
                throw ClientError(.sessionRefused, "the server refused event \(refusal.sequence) of session \(session.uuidString.lowercased()); it takes no more events")
            }
            if queue.closed { throw ClientError(.sessionClosed, "session \(session.uuidString.lowercased()) has ended; it takes no more events") }
            let sequence = state.nextSequence
            let plain = OutboxRecord.event(sequence: sequence, session: session, id: id, closes: closes, line: line).bytes
            let frameBytes = 4 + OutboxSegment.sealOverhead + plain.count
            if state.current.size + frameBytes > segmentBytes, state.current.size > OutboxSegment.headerSize {
                guard state.bytesOnDisk + OutboxSegment.headerSize + frameBytes <= byteBudget else { throw full(frameBytes, &state) }
                try roll(&state)
            }
            guard state.bytesOnDisk + frameBytes <= byteBudget else { throw full(frameBytes, &state) }
            let (offset, length) = try state.current.append(plain: plain, key: key, sync: true)
            state.nextSequence += 1
            let entry = Entry(sequence: sequence, session: session, id: id, closes: closes, segment: state.current.number, offset: offset, length: length)
            state.queues[session, default: Queue()].pending.append(entry)
            state.queues[session]!.newestSegment = state.current.number
            state.queues[session]!.closed = closes
            state.liveEvents[state.current.number, default: 0] += 1
            state.pendingBytes += length
            state.pendingEvents += 1
            return entry
        }
    }

    /// Up to `limit` events of `session` not yet acknowledged, after `sequence` (nil: from the first), in order; none
    /// past a refused event.
    package func pending(of session: UUID, after sequence: UInt64? = nil, limit: Int) -> [Entry] {
        state.withLock { state in
            guard let queue = state.queues[session] else { return [] }
            // Sequences rise along the queue: the first one after `sequence` is found by bisection, so that sending
            // a long queue (after an outage, a push) costs the same per event as a short one.
            var low = queue.head, high = queue.pending.count
            while low < high {
                let middle = (low + high) / 2
                if queue.pending[middle].sequence > (sequence ?? 0) { high = middle } else { low = middle + 1 }
            }
            var entries: [Entry] = []
            for entry in queue.pending[low...] {
                if let refusal = queue.refusal, entry.sequence >= refusal.sequence { break }
                entries.append(entry)
                if entries.count == limit { break }
            }
            return entries
        }
    }

    /// The ingest line of `entry`, read back and opened.
    package func line(of entry: Entry) throws -> Data {
        let segment = state.withLock { $0.segments[entry.segment] }
        guard let segment else { throw ClientError(.outboxIO, "event \(entry.sequence) of the outbox was released already") }
        guard case .event(_, _, _, _, let line) = try segment.record(at: entry.offset, length: entry.length, key: key) else {
            throw ClientError(.outboxDamaged, "the record at byte \(entry.offset) of \(segment.url.path) is not an event")
        }
        return line
    }

    /// Releases every event of `session` up to `sequence`: the server stored them. Written without a sync: an
    /// acknowledgement lost to a kill only sends its events again.
    package func acknowledge(_ session: UUID, through sequence: UInt64) throws {
        try state.withLock { state in
            guard let queue = state.queues[session], sequence > queue.acknowledgedThrough else { return }
            _ = try state.current.append(.acknowledged(session: session, through: sequence), key: key, sync: false)
            state.queues[session]!.acknowledgedThrough = sequence
            release(session, through: sequence, &state)
            try deleteReleasedSegments(&state)
        }
    }

    /// Releases the events of `session` up to the one whose id is `id`, when it is among them (the server says it
    /// stored it: it stores a session's events in the order sent, so every one before it too). Returns those released.
    package func acknowledge(_ session: UUID, upTo id: UUID) throws -> [Entry] {
        let released = state.withLock { state -> [Entry] in
            guard let queue = state.queues[session], let last = queue.unacknowledged.firstIndex(where: { $0.id == id }) else { return [] }
            return Array(queue.pending[queue.head...last])
        }
        guard let last = released.last else { return [] }
        try acknowledge(session, through: last.sequence)
        return released
    }

    /// Records the server's refusal of event `sequence` of `session`, synced: the session sends nothing after it.
    package func refuse(_ session: UUID, sequence: UInt64, problem: Data) throws {
        try state.withLock { state in
            _ = try state.current.append(.refused(session: session, sequence: sequence, problem: problem), key: key, sync: true)
            state.queues[session, default: Queue()].refusal = Refusal(sequence: sequence, problem: problem)
        }
    }

    /// Gives up what is left of `session` (after a refusal, say): nothing more of it is sent.
    package func discard(_ session: UUID) throws {
        try state.withLock { state in
            _ = try state.current.append(.discarded(session: session), key: key, sync: true)
            state.queues[session, default: Queue()].discarded = true
            release(session, through: .max, &state)
            try deleteReleasedSegments(&state)
        }
    }

    /// The id of the newest event of `session` not yet acknowledged: where a tool that moves stored sessions goes on
    /// after a kill (`sessionstore push`). Nil when the outbox holds none.
    package func lastUnacknowledged(of session: UUID) -> UUID? {
        state.withLock { $0.queues[session]?.unacknowledged.last?.id }
    }

    /// The refusal that stopped `session`, if the server refused one of its events.
    package func refusal(of session: UUID) -> Refusal? {
        state.withLock { $0.queues[session]?.refusal }
    }

    /// Whether `session` has ended on this device and the server holds all of it.
    package func isFinished(_ session: UUID) -> Bool {
        state.withLock { state in
            guard let queue = state.queues[session] else { return false }
            return queue.discarded || (queue.closed && queue.unacknowledged.isEmpty)
        }
    }

    /// Sessions with events the server has not acknowledged, and no refusal.
    package var sessionsToSend: [UUID] {
        state.withLock { state in
            state.queues.filter { !$0.value.unacknowledged.isEmpty && $0.value.refusal == nil && !$0.value.discarded }.map(\.key)
        }
    }

    /// Events not yet acknowledged, and the bytes of their records.
    package var depth: (events: Int, bytes: Int) {
        state.withLock { ($0.pendingEvents, $0.pendingBytes) }
    }

    /// The bytes of the outbox's files.
    package var bytesOnDisk: Int { state.withLock { $0.bytesOnDisk } }

    private func full(_ frameBytes: Int, _ state: inout State) -> ClientError {
        ClientError(.outboxFull, "the outbox is full: \(state.bytesOnDisk) of its \(byteBudget) bytes hold \(state.pendingEvents) events not yet "
                    + "acknowledged, and the event needs \(frameBytes) more")
    }

    private func release(_ session: UUID, through sequence: UInt64, _ state: inout State) {
        var released: [Entry] = []
        state.queues[session]?.release(through: sequence) { released.append($0) }
        for entry in released {
            state.liveEvents[entry.segment, default: 1] -= 1
            state.pendingBytes -= entry.length
            state.pendingEvents -= 1
        }
    }

    /// Starts a new segment, carrying into it the state of every session that older segments still hold events of.
    private func roll(_ state: inout State) throws {
        let next = try OutboxSegment.create(in: directory, number: state.current.number + 1, firstSequence: state.nextSequence, key: key)
        state.segments[next.number] = next
        state.current = next
        let oldest = state.oldestSegment
        for (session, queue) in state.queues where queue.newestSegment >= oldest {
            if queue.acknowledgedThrough > 0 {
                _ = try next.append(.acknowledged(session: session, through: queue.acknowledgedThrough), key: key, sync: false)
            }
            if let refusal = queue.refusal {
                _ = try next.append(.refused(session: session, sequence: refusal.sequence, problem: refusal.problem), key: key, sync: false)
            }
            if queue.discarded { _ = try next.append(.discarded(session: session), key: key, sync: false) }
        }
        try next.sync()
        try deleteReleasedSegments(&state)
    }

    /// Deletes every segment but the current one whose events are all released, and forgets sessions with no
    /// record left on disk. When nothing at all is pending and the current segment is large, starts a new one so
    /// that its space is freed too.
    private func deleteReleasedSegments(_ state: inout State) throws {
        var deleted = false
        for number in state.segments.keys.sorted() where number != state.current.number && state.liveEvents[number, default: 0] == 0 {
            let url = state.segments[number]!.url
            guard unlink(url.path) == 0 || errno == ENOENT else { throw OutboxSegment.ioError("delete", url) }
            state.segments[number] = nil
            state.liveEvents[number] = nil
            deleted = true
        }
        if deleted {
            try OutboxSegment.syncDirectory(directory)
            let oldest = state.oldestSegment
            state.queues = state.queues.filter { $0.value.newestSegment >= oldest || !$0.value.unacknowledged.isEmpty }
        }
        if state.pendingEvents == 0, state.current.size > segmentBytes / 2 {
            try roll(&state)
        }
    }
}
