import SessionModel

/// Where a replay takes a session's events from: a list in memory, or the store, read ahead in batches.
enum ReplaySource: Sendable {
    case events([RecordedSessionEvent])
    case loading(SessionLoader)

    /// Events in the session.
    var count: Int {
        switch self {
        case .events(let events): events.count
        case .loading(let loader): loader.count
        }
    }

    /// Milliseconds from the session's first event to its last.
    var recordedLength: Int64 {
        switch self {
        case .events(let events): max(0, (events.last?.event.occurredAt ?? 0) - (events.first?.event.occurredAt ?? 0))
        case .loading(let loader): loader.recordedLength
        }
    }

    /// The event at `index`; nil past the end.
    func event(at index: Int) async throws -> RecordedSessionEvent? {
        switch self {
        case .events(let events): index < events.count ? events[index] : nil
        case .loading(let loader): try await loader.event(at: index)
        }
    }
}
