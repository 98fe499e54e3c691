import Foundation
import Projections
import SessionModel

/// The session list in memory, in start order, kept current by the readers' catch-up
/// (``ViewCatchUp``): a page of the list, filtered and sorted, is found without reading the store, in
/// one pass over the sessions (docs/PERFORMANCE.md: 100,000 sessions).
///
/// The rows a catch-up writes are applied when the copy stands at the checkpoint they were folded
/// from; when anyone else moved the list (another process's catch-up, a rebuild) or the store is a
/// read-only replica, the whole list is read again.
final class SessionCatalog: @unchecked Sendable {
    // @unchecked: every stored property is guarded by `lock`.
    private let lock = NSLock()
    /// Every session, ordered by ``PageCursor`` on its start time.
    private var entries: [SessionSummary] = []
    private var keys: [UUID: PageCursor] = [:]
    /// The runs (replays into a system under test) of each session replayed.
    private var runs: [UUID: [UUID]] = [:]
    /// The list's checkpoint this copy reflects; nil before the first read.
    private var reflects: UInt64?

    /// Applies the rows a catch-up of this server committed, when they continue this copy.
    func apply(_ written: SessionRowsWritten) {
        lock.withLock {
            guard reflects == written.from else { return }
            if written.rows.count > 256 {
                for (id, summary) in written.rows {
                    if keys[id] == nil { entries.append(summary) } else { replaceInPlace(summary) }
                }
                rebuildOrder()
            } else {
                for summary in written.rows.values { place(summary) }
            }
            reflects = written.through
        }
    }

    /// Reads the whole list again when this copy does not stand at the stored checkpoint.
    func reconcile(with runner: ProjectionRunner) throws {
        let stored = try runner.sessionsCheckpoint()
        let replica = try runner.log.isReadOnlyReplica()
        guard replica || lock.withLock({ reflects != stored }) else { return }
        let (sessions, checkpoint) = try runner.sessionsWithCheckpoint()
        lock.withLock {
            entries = sessions
            rebuildOrder()
            reflects = checkpoint
        }
    }

    /// The page `query` asks for.
    func page(_ query: SessionQuery) -> SessionCatalogPage {
        lock.withLock {
            let sort = query.sort
            let after = query.after
            var matching = 0
            var picked: [SessionSummary] = []
            if sort == .started {
                func visit(_ summary: SessionSummary) {
                    guard query.matches(summary) else { return }
                    matching += 1
                    guard picked.count <= query.limit else { return }
                    if let after {
                        let key = PageCursor(summary: summary, sort: sort)
                        guard query.descending ? key < after : after < key else { return }
                    }
                    picked.append(summary)
                }
                if query.descending { entries.reversed().forEach(visit) } else { entries.forEach(visit) }
            } else {
                var candidates = entries.filter(query.matches).map { (key: PageCursor(summary: $0, sort: sort), summary: $0) }
                matching = candidates.count
                candidates.sort { query.descending ? $1.key < $0.key : $0.key < $1.key }
                if let after {
                    candidates.removeAll { query.descending ? !($0.key < after) : !(after < $0.key) }
                }
                picked = candidates.prefix(query.limit + 1).map(\.summary)
            }
            let page = Array(picked.prefix(query.limit))
            let next = picked.count > query.limit ? page.last.map { PageCursor(summary: $0, sort: sort) } : nil
            return SessionCatalogPage(sessions: page, next: next, matching: matching)
        }
    }

    /// The runs of `session`, in start order.
    func runs(of session: UUID) -> [SessionSummary] {
        lock.withLock {
            (runs[session] ?? []).compactMap { id in keys[id].flatMap(index(of:)).map { entries[$0] } }
        }
    }

    /// How many runs each session has.
    func runCount(of session: UUID) -> Int {
        lock.withLock { runs[session]?.count ?? 0 }
    }

    // MARK: Keeping the order (under `lock`)

    private func place(_ summary: SessionSummary) {
        let key = PageCursor(summary: summary, sort: .started)
        if let old = keys[summary.session], let index = index(of: old) {
            if old == key {
                entries[index] = summary
                return
            }
            entries.remove(at: index)
        }
        entries.insert(summary, at: insertionPoint(of: key))
        keys[summary.session] = key
        if let source = summary.runOf, !(runs[source] ?? []).contains(summary.session) { runs[source, default: []].append(summary.session) }
    }

    private func replaceInPlace(_ summary: SessionSummary) {
        if let old = keys[summary.session], let index = index(of: old) { entries[index] = summary }
    }

    private func rebuildOrder() {
        var latest: [UUID: SessionSummary] = [:]
        for summary in entries { latest[summary.session] = summary }
        entries = latest.values.sorted { PageCursor(summary: $0, sort: .started) < PageCursor(summary: $1, sort: .started) }
        keys = Dictionary(uniqueKeysWithValues: entries.map { ($0.session, PageCursor(summary: $0, sort: .started)) })
        runs = [:]
        for summary in entries { if let source = summary.runOf { runs[source, default: []].append(summary.session) } }
    }

    /// The first index whose key is not below `key`.
    private func insertionPoint(of key: PageCursor) -> Int {
        var (low, high) = (0, entries.count)
        while low < high {
            let middle = (low + high) / 2
            if PageCursor(summary: entries[middle], sort: .started) < key { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private func index(of key: PageCursor) -> Int? {
        let index = insertionPoint(of: key)
        return index < entries.count && PageCursor(summary: entries[index], sort: .started) == key ? index : nil
    }
}

/// What the session list is ordered by.
enum SessionSort: String, CaseIterable, Sendable {
    case started, duration, words

    func value(of summary: SessionSummary) -> Int64 {
        switch self {
        case .started: summary.startedAt ?? 0
        case .duration: summary.durationMilliseconds ?? -1
        case .words: Int64(summary.words)
        }
    }
}

/// A request for a page of the session list.
struct SessionQuery {
    var status: SessionSummary.Status?
    var subject: SubjectHash?
    /// Hex digits the session id starts with (dashes ignored).
    var idPrefix: [UInt8] = []
    var startedAfter: Int64?
    var startedBefore: Int64?
    /// Only runs (replays), or only sessions that are not runs.
    var runs: Bool?
    var sort: SessionSort = .started
    var descending = false
    var after: PageCursor?
    var limit = 100
    /// Whether the asker may see a session of this subject.
    var mayRead: (SubjectHash?) -> Bool = { _ in true }

    /// The nibbles of `text` when it is hex digits (and dashes), at most 32; nil otherwise.
    static func idPrefix(_ text: String) -> [UInt8]? {
        var nibbles: [UInt8] = []
        for character in text.lowercased() where character != "-" {
            guard let value = character.hexDigitValue, nibbles.count < 32 else { return nil }
            nibbles.append(UInt8(value))
        }
        return nibbles
    }

    func matches(_ summary: SessionSummary) -> Bool {
        if let status, summary.status != status { return false }
        if let subject, summary.subject != subject { return false }
        if let startedAfter, (summary.startedAt ?? 0) < startedAfter { return false }
        if let startedBefore, (summary.startedAt ?? 0) >= startedBefore { return false }
        if let runs, (summary.runOf != nil) != runs { return false }
        if !idPrefix.isEmpty, !Self.id(summary.session, startsWith: idPrefix) { return false }
        return mayRead(summary.subject)
    }

    private static func id(_ id: UUID, startsWith nibbles: [UInt8]) -> Bool {
        withUnsafeBytes(of: id.uuid) { bytes in
            for (index, nibble) in nibbles.enumerated() {
                let byte = bytes[index / 2]
                if (index % 2 == 0 ? byte >> 4 : byte & 0x0F) != nibble { return false }
            }
            return true
        }
    }
}

/// A page of the session list: its sessions, the cursor of the next page (nil on the last), and how
/// many sessions match the filters on all pages.
struct SessionCatalogPage {
    var sessions: [SessionSummary]
    var next: PageCursor?
    var matching: Int
}
