import Synchronization

/// Hands values from one task to one other task, one at a time and unbuffered: ``send(_:)`` returns once
/// the value was taken by ``next()``, once the hand-off is finished, or once the sending task is
/// cancelled (the value is then dropped); ``next()`` returns nil once finished or cancelled.
///
/// The drive's pacing rests on this rendezvous: the feeder learns that an event was taken before it
/// paces the next. It is what AsyncAlgorithms' `AsyncChannel` does for one sender and one receiver,
/// written here because that package and the swift-collections it needs were about a fifth of the
/// store's first build (docs/history/performance.md, "Build"). One sender and one receiver at a time.
final class HandOff<Element: Sendable>: Sendable {
    private enum Waiting {
        case nobody
        case sender(Element, CheckedContinuation<Void, Never>)
        case receiver(CheckedContinuation<Element?, Never>)
    }

    private struct State {
        var waiting = Waiting.nobody
        var finished = false
        // Set by a cancellation handler, which may run before its task waits: the wait then ends at once.
        var senderCancelled = false
        var receiverCancelled = false
    }

    private let state = Mutex(State())

    /// Waits until `element` is taken, the hand-off is finished, or this task is cancelled.
    func send(_ element: Element) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (sent: CheckedContinuation<Void, Never>) in
                let receiver: CheckedContinuation<Element?, Never>?? = state.withLock { state in
                    if state.finished || state.senderCancelled { return .some(nil) }
                    if case .receiver(let receiver) = state.waiting {
                        state.waiting = .nobody
                        return receiver
                    }
                    state.waiting = .sender(element, sent)
                    return nil
                }
                guard let receiver else { return }  // waits for a receiver, a finish or a cancellation
                receiver?.resume(returning: element)
                sent.resume()
            }
        } onCancel: {
            let sender: CheckedContinuation<Void, Never>? = state.withLock { state in
                state.senderCancelled = true
                guard case .sender(_, let sent) = state.waiting else { return nil }
                state.waiting = .nobody
                return sent
            }
            sender?.resume()
        }
    }

    /// The next element sent; nil once the hand-off is finished or this task is cancelled.
    func next() async -> Element? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (received: CheckedContinuation<Element?, Never>) in
                let taken: (Element, CheckedContinuation<Void, Never>)?? = state.withLock { state in
                    if case .sender(let element, let sent) = state.waiting {
                        state.waiting = .nobody
                        return (element, sent)
                    }
                    if state.finished || state.receiverCancelled { return .some(nil) }
                    state.waiting = .receiver(received)
                    return nil
                }
                guard let taken else { return }  // waits for a sender, a finish or a cancellation
                received.resume(returning: taken?.0)
                taken?.1.resume()
            }
        } onCancel: {
            let receiver: CheckedContinuation<Element?, Never>? = state.withLock { state in
                state.receiverCancelled = true
                guard case .receiver(let receiver) = state.waiting else { return nil }
                state.waiting = .nobody
                return receiver
            }
            receiver?.resume(returning: nil)
        }
    }

    /// Ends the hand-off: a sender waiting returns (its element dropped), a receiver waiting gets nil, and
    /// so does every later ``next()``.
    func finish() {
        let waiting: Waiting = state.withLock { state in
            state.finished = true
            defer { state.waiting = .nobody }
            return state.waiting
        }
        switch waiting {
        case .nobody: break
        case .sender(_, let sent): sent.resume()
        case .receiver(let receiver): receiver.resume(returning: nil)
        }
    }
}
