import Foundation
import Synchronization

/// Hands each notice to every stream the app asked for.
final class Notices: Sendable {
    private let listeners = Mutex<[UUID: AsyncStream<SyncNotice>.Continuation]>([:])
    private let states = Mutex<[UUID: ConnectionState]>([:])

    func stream() -> AsyncStream<SyncNotice> {
        let (stream, continuation) = AsyncStream<SyncNotice>.makeStream(bufferingPolicy: .bufferingNewest(4096))
        let id = UUID()
        listeners.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in self?.listeners.withLock { $0[id] = nil } }
        return stream
    }

    func send(_ notice: SyncNotice) {
        if case .state(let session, let state) = notice {
            let changed = states.withLock { states in
                defer { states[session] = state }
                return states[session] != state
            }
            guard changed else { return }
        }
        for continuation in listeners.withLock({ Array($0.values) }) { continuation.yield(notice) }
    }

    var currentStates: [UUID: ConnectionState] { states.withLock { $0 } }

    func finish() {
        for continuation in listeners.withLock({ Array($0.values) }) { continuation.finish() }
    }
}
