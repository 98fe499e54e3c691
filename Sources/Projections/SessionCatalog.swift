import Foundation
import SessionModel
import Synchronization

/// The session list in memory, in start order, kept current by folding the log's new events into it
/// (``ProjectionRunner/foldSessionList(from:rows:)``, the persisted list's own fold): a page of the list,
/// filtered and sorted, is found without reading the store, in one pass over the sessions (a page of the
/// whole list in start order, by its cursor: docs/history/performance.md, "How costs grow with the store"), and
/// bringing it up to date takes no lock of the store, so that readers do not wait behind writers (the server's
/// `ViewCatchUp` runs it).
package final class SessionCatalog: Sendable {
    private let list = Mutex(OrderedList())

    package init() {}

    /// Folds every event committed before this call into the copy: the first time, the persisted list
    /// and the events after its checkpoint. One caller at a time (the server runs it on a queue).
    package func catchUp(with runner: ProjectionRunner) throws {
        let position: UInt64
        if let reflects = list.withLock({ $0.reflects }) {
            position = reflects
        } else {
            let (sessions, checkpoint) = try runner.sessionsWithCheckpoint(includingUnstored: false)
            list.withLock { $0.rebuild(sessions) }
            position = checkpoint
        }
        let (rows, through) = try runner.foldSessionList(from: position) { session in list.withLock { $0.summary(session) } }
        list.withLock { list in
            if rows.count > 256 {
                var latest = Dictionary(uniqueKeysWithValues: list.entries.map { ($0.session, $0) })
                latest.merge(rows) { $1 }
                list.rebuild(Array(latest.values))
            } else {
                for summary in rows.values { list.place(summary) }
            }
            list.reflects = through
        }
    }

    /// Whether every event before position `end` is folded in.
    package func reflects(through end: UInt64) -> Bool {
        list.withLock { $0.reflects.map { $0 >= end } ?? false }
    }

    /// The row of `session`, when the list holds it.
    package func row(of session: UUID) -> SessionSummary? {
        list.withLock { $0.summary(session) }
    }

    /// The page `query` asks for: one pass over the sessions' facts (plain values), which keeps the
    /// `limit + 1` first in the order asked for; only those are read whole.
    package func page(_ query: SessionQuery) -> SessionCatalogPage {
        list.withLock { list in
            let filter = CompiledQuery(query, subjects: list.subjectNumbers)
            if query.sort == .started, query.labels.isEmpty, filter.matchesEverything {
                return list.pageInStartOrder(after: query.after, limit: query.limit, descending: query.descending)
            }
            var matching = 0
            var best = BoundedBest(capacity: query.limit + 1, descending: query.descending)
            list.facts.withUnsafeBufferPointer { facts in
                func visit(_ index: Int) {
                    guard filter.matches(facts[index]), query.labels.isEmpty || list.entries[index].hasLabels(query.labels) else { return }
                    matching += 1
                    let key = facts[index].key(query.sort)
                    if let after = query.after, query.descending ? !(key < after) : !(after < key) { return }
                    best.offer(key, index)
                }
                // In start order, the first sessions met are the best ones: the heap fills and then only refuses.
                if query.sort == .started, query.descending {
                    for index in facts.indices.reversed() { visit(index) }
                } else {
                    for index in facts.indices { visit(index) }
                }
            }
            let picked = best.sorted()
            let page = picked.prefix(query.limit).map { list.entries[$0.index] }
            let next = picked.count > query.limit ? picked[query.limit - 1].key : nil
            return SessionCatalogPage(sessions: Array(page), next: next, matching: matching)
        }
    }

    /// The runs of `session`, in start order.
    package func runs(of session: UUID) -> [SessionSummary] {
        list.withLock { list in
            (list.runs[session] ?? []).compactMap { id in list.keys[id].flatMap(list.index(of:)).map { list.entries[$0] } }
        }
    }

    /// How many runs each session has.
    package func runCount(of session: UUID) -> Int {
        list.withLock { $0.runs[session]?.count ?? 0 }
    }
}

/// The catalog's sessions, kept in start order.
private struct OrderedList {
    /// Every session, ordered by ``SessionListKey`` on its start time; `facts[i]` is `entries[i]`'s.
    var entries: [SessionSummary] = []
    var facts: [SessionFacts] = []
    var keys: [UUID: SessionListKey] = [:]
    /// Each subject's number in ``SessionFacts/subject`` (0: none).
    var subjectNumbers: [SubjectHash: Int32] = [:]
    /// The runs (replays into a system under test) of each session replayed.
    var runs: [UUID: [UUID]] = [:]
    /// The log position this copy is folded up to; nil before the first catch-up.
    var reflects: UInt64?

    func summary(_ session: UUID) -> SessionSummary? {
        keys[session].flatMap(index(of:)).map { entries[$0] }
    }

    mutating func place(_ summary: SessionSummary) {
        let key = SessionListKey(startOf: summary)
        if let old = keys[summary.session], let index = index(of: old) {
            if old == key {
                entries[index] = summary
                facts[index] = SessionFacts(summary, subject: subjectNumber(summary.subject))
                return
            }
            entries.remove(at: index)
            facts.remove(at: index)
        }
        let index = insertionPoint(of: key)
        entries.insert(summary, at: index)
        facts.insert(SessionFacts(summary, subject: subjectNumber(summary.subject)), at: index)
        keys[summary.session] = key
        if let source = summary.runOf, !(runs[source] ?? []).contains(summary.session) { runs[source, default: []].append(summary.session) }
    }

    mutating func rebuild(_ sessions: [SessionSummary]) {
        entries = sessions.sortedByStart()
        keys = Dictionary(uniqueKeysWithValues: entries.map { ($0.session, SessionListKey(startOf: $0)) })
        facts = []
        facts.reserveCapacity(entries.count)
        for summary in entries { facts.append(SessionFacts(summary, subject: subjectNumber(summary.subject))) }
        runs = [:]
        for summary in entries { if let source = summary.runOf { runs[source, default: []].append(summary.session) } }
    }

    private mutating func subjectNumber(_ subject: SubjectHash?) -> Int32 {
        guard let subject else { return 0 }
        if let number = subjectNumbers[subject] { return number }
        let number = Int32(subjectNumbers.count + 1)
        subjectNumbers[subject] = number
        return number
    }

    /// The first index whose key is not below `key`.
    private func insertionPoint(of key: SessionListKey) -> Int {
        var (low, high) = (0, facts.count)
        while low < high {
            let middle = (low + high) / 2
            if facts[middle].key(.started) < key { low = middle + 1 } else { high = middle }
        }
        return low
    }

    func index(of key: SessionListKey) -> Int? {
        let index = insertionPoint(of: key)
        return index < facts.count && facts[index].key(.started) == key ? index : nil
    }

    /// A page of the whole list in the order it is kept: found by its cursor, not by a pass over every
    /// session, so that the list's first page and each next one cost the same at any size.
    func pageInStartOrder(after cursor: SessionListKey?, limit: Int, descending: Bool) -> SessionCatalogPage {
        let wanted = limit < facts.count ? limit + 1 : facts.count  // one more than the page tells whether a next one exists
        let picked: [Int]
        if descending {
            let end = cursor.map(insertionPoint(of:)) ?? facts.count
            picked = Array((max(0, end - wanted)..<end).reversed())
        } else {
            var start = cursor.map(insertionPoint(of:)) ?? 0
            if let cursor, start < facts.count, facts[start].key(.started) == cursor { start += 1 }
            picked = Array(start..<min(facts.count, start + wanted))
        }
        let next = picked.count > limit ? facts[picked[limit - 1]].key(.started) : nil
        return SessionCatalogPage(sessions: picked.prefix(limit).map { entries[$0] }, next: next, matching: facts.count)
    }
}

/// What the list is filtered and sorted on, of one session, as plain values (no reference counting in
/// the pass over 100,000 of them).
private struct SessionFacts {
    var started: Int64
    var duration: Int64
    var words: Int64
    var id: UUID
    var idHigh: UInt64
    var idLow: UInt64
    var subject: Int32
    var status: SessionSummary.Status
    var isRun: Bool

    init(_ summary: SessionSummary, subject: Int32) {
        started = SessionSort.started.value(of: summary)
        duration = SessionSort.duration.value(of: summary)
        words = SessionSort.words.value(of: summary)
        id = summary.session
        (idHigh, idLow) = withUnsafeBytes(of: summary.session.uuid) { bytes in
            (bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }, bytes.suffix(8).reduce(0) { $0 << 8 | UInt64($1) })
        }
        self.subject = subject
        status = summary.status
        isRun = summary.runOf != nil
    }

    func key(_ sort: SessionSort) -> SessionListKey {
        switch sort {
        case .started: SessionListKey(value: started, id: id)
        case .duration: SessionListKey(value: duration, id: id)
        case .words: SessionListKey(value: words, id: id)
        }
    }
}

/// A ``SessionQuery`` in the catalog's terms: subjects as numbers, the id prefix as masks.
private struct CompiledQuery {
    var status: SessionSummary.Status?
    /// -1: a subject the catalog does not know (nothing matches).
    var subject: Int32?
    /// The subjects the asker may see; nil: all.
    var readable: Set<Int32>?
    var startedAfter: Int64?
    var startedBefore: Int64?
    var runs: Bool?
    var mask: (UInt64, UInt64) = (0, 0)
    var prefix: (UInt64, UInt64) = (0, 0)

    init(_ query: SessionQuery, subjects: [SubjectHash: Int32]) {
        status = query.status
        subject = query.subject.map { subjects[$0] ?? -1 }
        if let limited = query.readableSubjects { readable = Set(limited.compactMap { subjects[$0] }) }
        startedAfter = query.startedAfter
        startedBefore = query.startedBefore
        runs = query.runs
        for (index, nibble) in query.idPrefix.enumerated() {
            let shift = UInt64(60 - 4 * (index % 16))
            if index < 16 {
                mask.0 |= 0xF << shift
                prefix.0 |= UInt64(nibble) << shift
            } else {
                mask.1 |= 0xF << shift
                prefix.1 |= UInt64(nibble) << shift
            }
        }
    }

    /// Whether the query keeps every session: ``SessionCatalog/page(_:)`` then finds a page in start order by
    /// its cursor. A filter added to this type must be named here too.
    var matchesEverything: Bool {
        status == nil && subject == nil && readable == nil && startedAfter == nil && startedBefore == nil && runs == nil
            && mask == (0, 0)
    }

    func matches(_ facts: SessionFacts) -> Bool {
        if let status, facts.status != status { return false }
        if let subject, facts.subject != subject { return false }
        if let startedAfter, facts.started < startedAfter { return false }
        if let startedBefore, facts.started >= startedBefore { return false }
        if let runs, facts.isRun != runs { return false }
        if facts.idHigh & mask.0 != prefix.0 || facts.idLow & mask.1 != prefix.1 { return false }
        if let readable, !readable.contains(facts.subject) { return false }
        return true
    }
}

/// The `capacity` first of the keys offered, in ascending (or descending) order: a bounded heap, so a
/// page sorted by any key costs one pass, not a sort of every session.
private struct BoundedBest {
    let capacity: Int
    let descending: Bool
    /// A heap whose top is the worst kept key.
    private var heap: [(key: SessionListKey, index: Int)] = []

    init(capacity: Int, descending: Bool) {
        self.capacity = capacity
        self.descending = descending
    }

    /// Whether `a` comes before `b` in the order asked for.
    private func precedes(_ a: SessionListKey, _ b: SessionListKey) -> Bool { descending ? b < a : a < b }

    mutating func offer(_ key: SessionListKey, _ index: Int) {
        if heap.count < capacity {
            heap.append((key, index))
            siftUp(heap.count - 1)
        } else if let worst = heap.first, precedes(key, worst.key) {
            heap[0] = (key, index)
            siftDown(0)
        }
    }

    func sorted() -> [(key: SessionListKey, index: Int)] {
        heap.sorted { precedes($0.key, $1.key) }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(heap[parent].key, heap[child].key) else { return }
            heap.swapAt(parent, child)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let (left, right) = (2 * parent + 1, 2 * parent + 2)
            var worst = parent
            if left < heap.count, precedes(heap[worst].key, heap[left].key) { worst = left }
            if right < heap.count, precedes(heap[worst].key, heap[right].key) { worst = right }
            guard worst != parent else { return }
            heap.swapAt(parent, worst)
            parent = worst
        }
    }
}

/// What the session list is ordered by.
package enum SessionSort: String, CaseIterable, Sendable {
    case started, duration, words

    package func value(of summary: SessionSummary) -> Int64 {
        switch self {
        case .started: summary.startedAt ?? 0
        case .duration: summary.durationMilliseconds ?? -1
        case .words: Int64(summary.words)
        }
    }
}

/// A request for a page of the session list.
package struct SessionQuery {
    package init() {}

    package var status: SessionSummary.Status?
    package var subject: SubjectHash?
    /// Hex digits the session id starts with (dashes ignored).
    package var idPrefix: [UInt8] = []
    package var startedAfter: Int64?
    package var startedBefore: Int64?
    /// Only runs (replays), or only sessions that are not runs.
    package var runs: Bool?
    /// Only sessions with these labels (each name with this value).
    package var labels: [(name: String, value: String)] = []
    package var sort: SessionSort = .started
    package var descending = false
    package var after: SessionListKey?
    package var limit = 100
    /// The subjects whose sessions the asker may see; nil: everyone's.
    package var readableSubjects: [SubjectHash]?

    /// Every session (no page limit) of `subject`, or of everyone, that a principal limited to
    /// `readableSubjects` may see: what an export or a bundle takes.
    package static func all(of subject: SubjectHash? = nil, readableSubjects: [SubjectHash]? = nil) -> SessionQuery {
        var query = SessionQuery()
        query.subject = subject
        query.readableSubjects = readableSubjects
        query.limit = Int.max - 1  // the page's heap keeps limit + 1
        return query
    }

    /// The nibbles of `text` when it is hex digits (and dashes), at most 32; nil otherwise.
    package static func idPrefix(_ text: String) -> [UInt8]? {
        var nibbles: [UInt8] = []
        for character in text.lowercased() where character != "-" {
            guard let value = character.hexDigitValue, nibbles.count < 32 else { return nil }
            nibbles.append(UInt8(value))
        }
        return nibbles
    }
}

/// A page of the session list: its sessions, the cursor of the next page (nil on the last), and how
/// many sessions match the filters on all pages.
package struct SessionCatalogPage {
    package var sessions: [SessionSummary]
    package var next: SessionListKey?
    package var matching: Int
}

extension SessionListKey {
    /// `summary`'s place in the list sorted by `sort`.
    package init(summary: SessionSummary, sort: SessionSort) {
        self.init(value: sort.value(of: summary), id: summary.session)
    }
}
